import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chatTexts, eventually, type Harness, type PlacedOrder, startHarness } from "../events/harness.ts";
import { testRedisUrl } from "../support/redis.ts";
import { type SpawnedBot, spawnBot, stopAllBots } from "../support/spawn-bot.ts";

/**
 * The bot as a real process receiving signed payout webhooks over HTTP, SIGKILLed while one order's delivery is
 * in progress (the status card edit reached Telegram, the process never heard back) and other events arrive. A
 * new process must take over the dead one's order lock and active queue jobs at once, and every user must end with
 * each notification exactly once.
 */
let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness();
  port = await freePort();
});
afterEach(async () => {
  await stopAllBots();
});
afterAll(async () => {
  await h?.close();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function start(): Promise<SpawnedBot> {
  const bot = spawnBot({
    env: {
      NODE_ENV: "test",
      BOT_TOKEN: h.tg.token,
      TELEGRAM_API_ROOT: h.tg.apiRoot,
      PAYOUT_API_BASE_URL: h.sandbox.baseUrl,
      PAYOUT_API_KEY: h.sandbox.apiKey,
      PAYOUT_WEBHOOK_SECRET: h.sandbox.webhookSecret,
      PAYOUT_ENV: "sandbox",
      REDIS_URL: testRedisUrl(),
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: "0",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
    },
  });
  await bot.waitForLog(/bot started/, { timeoutMs: 30_000 });
  return bot;
}

describe("a bot process killed while payout events arrive", () => {
  it("a restarted process takes over at once: every notification lands, none twice", {
    timeout: 60_000,
  }, async () => {
    const first = await start();
    const placed: PlacedOrder[] = [];
    for (const userId of [9101, 9102, 9103, 9104]) {
      placed.push(await h.placeOrder({ corridor: "NG", userId }));
    }

    // The first status-card edit reaches Telegram, but the process dies before it hears back: its delivery lock
    // and its active BullMQ job are left behind, and the events still coming find nobody listening.
    let killedAt = 0;
    let inProgressChat: number | undefined;
    h.tg.faults.add({
      method: "editMessageText",
      times: Number.POSITIVE_INFINITY,
      when: (params) => {
        if (!killedAt) {
          killedAt = Date.now();
          inProgressChat = Number(params.chat_id);
          first.child.kill("SIGKILL");
        }
        return false;
      },
    });
    await Promise.all(placed.map((order) => h.pay(order)));
    const exit = await first.exited;
    expect(exit.signal).toBe("SIGKILL");
    expect(killedAt).toBeGreaterThan(0);

    const second = await start();
    const readyAt = Date.now();
    // When each order's first and last notification landed, after the new process was ready (a first one the
    // dead process already sent counts as 0).
    const landed = new Map<string, number>();
    const firstLanded = new Map<string, number>();
    const before = new Map(placed.map((order) => [order.order.orderId, chatTexts(order.user).length]));
    await eventually(
      () => {
        for (const order of placed) {
          const [, ...notifications] = chatTexts(order.user);
          const id = order.order.orderId;
          if (!firstLanded.has(id) && notifications.length > 0) {
            firstLanded.set(id, (before.get(id) ?? 0) > 1 ? 0 : Date.now() - readyAt);
          }
          if (!landed.has(id) && notifications.some((text) => /delivered to/.test(text))) {
            landed.set(id, Date.now() - readyAt);
          }
        }
        return landed.size === placed.length;
      },
      "every notification",
      25_000,
    );

    for (const order of placed) {
      const [card, ...notifications] = chatTexts(order.user);
      expect(card).toMatch(/Completed/);
      // Each stage at most once and the final one exactly once (an order whose events all came late may be seen
      // completed by the reconciler first, which tells the final stage only).
      expect(notifications.filter((text) => /Payment received/.test(text)).length).toBeLessThanOrEqual(1);
      expect(notifications.filter((text) => /delivered to/.test(text))).toHaveLength(1);
      expect(notifications.at(-1)).toMatch(/delivered to/);
    }
    // Reported, not asserted tightly. The order whose delivery was in progress waits only for the takeover of the
    // dead process's job and lock; an order all of whose events were queued before the kill likewise; the others
    // also wait for the provider's own retry schedule (the sandbox retries after 1 s, then 5 s).
    const log = h.sandbox.webhookLog();
    const queuedBeforeKill = (order: PlacedOrder) =>
      log
        .filter((record) => record.body.includes(order.order.hash))
        .every(
          (record) =>
            (record.attempts[0]?.at ?? Number.POSITIVE_INFINITY) < killedAt &&
            record.attempts[0]?.statusCode === 200,
        );
    const label = (order: PlacedOrder) =>
      order.user.id === inProgressChat
        ? " (in progress at the kill)"
        : queuedBeforeKill(order)
          ? " (queued before the kill)"
          : "";
    console.info(
      `restart → first / last notification (ms): ${placed
        .map(
          (order) =>
            `${firstLanded.get(order.order.orderId)} / ${landed.get(order.order.orderId)}${label(order)}`,
        )
        .join(", ")}; kill → restart ready: ${readyAt - killedAt} ms`,
    );
    expect(Math.max(...landed.values())).toBeLessThan(15_000);
    await second.kill("SIGTERM");
  });

  it("a notification Telegram had when the process died is not sent again", { timeout: 60_000 }, async () => {
    const first = await start();
    const placed = await h.placeOrder({ corridor: "NG", userId: 9201 });
    // The "payment received" message reaches Telegram (the user sees it), and the process dies before it hears
    // back: the outbox cursor never moved past it.
    let killed = false;
    h.tg.faults.add({
      method: "sendMessage",
      times: Number.POSITIVE_INFINITY,
      when: (params) => {
        if (!killed && Number(params.chat_id) === 9201 && /Payment received/.test(String(params.text))) {
          killed = true;
          first.child.kill("SIGKILL");
        }
        return false;
      },
    });
    await h.pay(placed);
    expect((await first.exited).signal).toBe("SIGKILL");

    const second = await start();
    await eventually(
      () =>
        chatTexts(placed.user)
          .slice(1)
          .some((text) => /delivered to/.test(text)),
      "the last notification",
      25_000,
    );
    const [card, ...notifications] = chatTexts(placed.user);
    expect(card).toMatch(/Completed/);
    expect(notifications.filter((text) => /Payment received/.test(text))).toHaveLength(1);
    expect(notifications.filter((text) => /delivered to/.test(text))).toHaveLength(1);
    await second.kill("SIGTERM");
  });
});
