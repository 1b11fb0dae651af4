import { autoRetry } from "@grammyjs/auto-retry";
import { Api, type Transformer } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { burstPacer, replyingToChat } from "#src/bot/telegram-limits.js";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";

/** A clock that only moves when the pacer sleeps: what it waits is read from the clock, never measured. */
function fakeClock() {
  const clock = { now: 1_000_000, slept: [] as number[] };
  return {
    clock,
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.now += ms;
    },
  };
}

type Answer =
  | { ok: true; result: true }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after?: number } };

function call(pacer: Transformer, chatId: number | undefined, answer: Answer = { ok: true, result: true }) {
  const prev = (async () => answer) as unknown as Parameters<Transformer>[0];
  const payload = chatId === undefined ? { callback_query_id: "1" } : { chat_id: chatId, text: "x" };
  return pacer(prev, "sendMessage", payload as never, undefined);
}

describe("burstPacer", () => {
  it("lets a short burst in a chat through at once and paces only what follows it", async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = burstPacer({ now, sleep, marginMs: 0 });
    for (let i = 0; i < 3; i += 1) await call(pacer, 42);
    expect(clock.slept).toEqual([]);
    await call(pacer, 42);
    expect(clock.slept).toEqual([1000]);
    // Another chat has its own budget.
    await call(pacer, 43);
    await call(pacer, 43);
    expect(clock.slept).toEqual([1000]);
    // The budget refills with time: a quiet chat bursts again.
    clock.now += 3000;
    for (let i = 0; i < 3; i += 1) await call(pacer, 42);
    expect(clock.slept).toEqual([1000]);
  });

  it("holds a chat for the retry_after of a 429 and leaves other chats alone", async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = burstPacer({ now, sleep, marginMs: 0 });
    const refused = await call(pacer, 7, {
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 5",
      parameters: { retry_after: 5 },
    });
    expect(refused.ok).toBe(false);
    await call(pacer, 8);
    expect(clock.slept).toEqual([]);
    await call(pacer, 7);
    expect(clock.slept).toEqual([5000]);
  });

  it("paces groups at their own budget and all chats together at the global one", async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = burstPacer({
      now,
      sleep,
      marginMs: 0,
      groupBurst: 2,
      groupIntervalMs: 3000,
      globalBurst: 4,
      globalPerSecond: 4,
    });
    await call(pacer, -100);
    await call(pacer, -100);
    await call(pacer, -100);
    expect(clock.slept).toEqual([3000]);
    // The global bucket refilled while the group waited: four chats at once, the fifth waits a quarter second.
    for (const chat of [1, 2, 3, 4]) await call(pacer, chat);
    await call(pacer, 5);
    expect(clock.slept).toEqual([3000, 250]);
    // Calls without a chat (callback answers) are never paced.
    await call(pacer, undefined);
    expect(clock.slept).toEqual([3000, 250]);
  });

  it("paces a reply to the chat whose update is handled by that chat's budget alone", async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = burstPacer({ now, sleep, marginMs: 0, globalBurst: 2, globalPerSecond: 2 });
    // Notifications spend the global budget: the next one would wait half a second.
    await call(pacer, 1);
    await call(pacer, 2);
    expect(clock.slept).toEqual([]);
    // New users' first replies do not queue behind it, nor take from it.
    for (const chat of [10, 11, 12, 13]) await replyingToChat(chat, () => call(pacer, chat));
    expect(clock.slept).toEqual([]);
    // What the same handling sends to another chat (an alert to a group) is the bot's own: it waits its turn.
    await replyingToChat(14, () => call(pacer, 15));
    expect(clock.slept).toEqual([500]);
    // A reply still keeps to its chat's budget: three at once, then one a second.
    for (let i = 0; i < 4; i += 1) await replyingToChat(20, () => call(pacer, 20));
    expect(clock.slept).toEqual([500, 1000]);
    // Outside any update (the events pipeline) the global bucket applies, refilled meanwhile: two, then a wait.
    for (const chat of [3, 4, 5]) await call(pacer, chat);
    expect(clock.slept).toEqual([500, 1000, 500]);
  });
});

describe("burstPacer against the emulator's flood limits", () => {
  let tg: TelegramEmulator;
  beforeAll(async () => {
    tg = await startTelegramEmulator({ rateLimits: true });
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("delivers a card edit plus a notification, and a longer burst, with no 429", async () => {
    const api = new Api(tg.token, { apiRoot: tg.apiRoot });
    api.config.use(burstPacer());
    api.config.use(autoRetry({ maxRetryAttempts: 0 }));
    const user = tg.user({ id: 5_101, first_name: "Ada", started: true });
    const card = await api.sendMessage(user.id, "Waiting for payment");
    await Promise.all([
      api.editMessageText(user.id, card.message_id, "Payment received"),
      api.sendMessage(user.id, "Your payment arrived"),
    ]);
    // Six more in the same chat at once: beyond the burst, the pacer spaces them instead of Telegram refusing.
    await Promise.all(Array.from({ length: 6 }, (_, i) => api.sendMessage(user.id, `update ${i + 1}`)));
    const calls = tg.calls().filter((record) => record.method !== "getUpdates");
    expect(calls.filter((record) => record.status === 429)).toEqual([]);
    expect(calls.filter((record) => record.method === "sendMessage" && record.ok)).toHaveLength(8);
    expect(calls.filter((record) => record.method === "editMessageText" && record.ok)).toHaveLength(1);
  }, 30_000);
});
