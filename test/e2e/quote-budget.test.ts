import type { Message } from "grammy/types";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatClock } from "#src/money/index.js";
import { keys } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttons, current, nigerianRecipient, quoteCount, quoteFor, typeAndRead } from "./payout-support.ts";

/** The defaults (src/config.ts): 5 open quotes at once, 20 quotes per rolling 10 minutes. */
const QUOTES_PER_WINDOW = 20;
const WINDOW_MS = 10 * 60_000;

/**
 * Every key of the test's database, and the ones that do not come and go with presses: all but the update inbox's
 * per-update markers (`updates:seen:<id>`, `updates:calls:<id>`: one per update whatever it asks for, each kept a
 * day — their TTLs are checked below — and bounded by the incoming flood limit) and the reconciler's tick jobs
 * (`bull:payout-reconcile:repeat:*`: one per tick of wall time, BullMQ keeps the last 50).
 */
async function keyCounts(redis: Redis): Promise<{ total: number; kept: number; perUpdate: string[] }> {
  const all: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    all.push(...batch);
  } while (cursor !== "0");
  const perUpdate = all.filter((key) => /^updates:(seen|calls):\d+$/.test(key));
  const ticks = all.filter((key) => key.startsWith("bull:payout-reconcile:repeat:"));
  return { total: await redis.dbsize(), kept: all.length - perUpdate.length - ticks.length, perUpdate };
}

/**
 * Press `button` on `message` `times` times before the bot answered any (as fast as a client sends them) and wait
 * for every answer. Telegram takes an answer up to 15 s after the press (the emulator too), so a burst stays small
 * enough to be answered in time.
 */
async function mash(user: UserDriver, message: Message, button: RegExp, times: number): Promise<void> {
  const presses = [];
  for (let press = 0; press < times; press += 1) presses.push(await user.press(message, button));
  await Promise.all(presses.map((press) => press.answer({ timeoutMs: 15_000 })));
}

describe("quote budget: a user pressing Refresh without end", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("1,000 presses make at most the budget's quotes, leave Redis bounded and say when the next quote is possible", async () => {
    const user = stack.tg.user({ id: 7801, first_name: "Presser" });
    await nigerianRecipient(user);
    const before = quoteCount(stack);
    const card = await quoteFor(user, "5000");

    // 100 Refresh taps on the quote card before the bot answered any: each reaches the flow as the card's answer
    // until the budget is spent; the card then says when, and the rest find the flow ended.
    await mash(user, card, /Refresh quote/, 100);
    await stack.tg.idle({ quietMs: 300, timeoutMs: 60_000 });
    const refused = current(user, card);
    expect(refused.text).toMatch(/You have asked for a lot of quotes in a short time/);
    expect(buttons(refused)).toEqual(["🔁 New quote"]);
    expect(quoteCount(stack) - before).toBe(QUOTES_PER_WINDOW);
    const after100 = await keyCounts(stack.redis);

    // The named time: the oldest quote of the window plus the window, in the corridor's clock, never too early.
    const [, oldest] = await stack.redis.zrange(keys.userQuotesAsked(user.id), 0, 0, "WITHSCORES");
    const retryAt = Math.ceil((Number(oldest) + WINDOW_MS) / 60_000) * 60_000;
    expect(retryAt).toBeGreaterThan(stack.sandbox.now());
    expect(refused.text).toContain(`You can get a new quote from ${formatClock(retryAt, "en", "NG")}.`);

    // 900 more: "New quote" on the newest refusal, in bursts of 50: each press opens the flow, is refused (a new
    // refusal, with its own New quote) and ends it again.
    for (let burst = 0; burst < 18; burst += 1) {
      const newest = user.lastMessage();
      if (!newest) throw new Error("no refusal shown");
      const shown = user.messages().length;
      await mash(user, newest, /New quote/, 50);
      await expect.poll(() => user.messages().length, { timeout: 15_000 }).toBe(shown + 50);
    }
    await stack.tg.idle({ quietMs: 300, timeoutMs: 60_000 });
    const after1000 = await keyCounts(stack.redis);
    expect(quoteCount(stack) - before).toBe(QUOTES_PER_WINDOW);
    expect(after1000.kept - after100.kept).toBeLessThanOrEqual(2);
    for (const key of after1000.perUpdate) {
      const ttl = await stack.redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(24 * 3600);
    }
    const last = user.lastMessage();
    expect(last?.text).toContain(`You can get a new quote from ${formatClock(retryAt, "en", "NG")}.`);
    expect(buttons(last)).toEqual(["🔁 New quote"]);

    // The same budget holds for a bitcoin purchase: refused before the API is asked, with the same time.
    user.consumeAll();
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
    const speed = await user.nextMessage({ match: "Step 2 of 3" });
    await (await user.press(speed, /Fast/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    await user.send("50,000");
    const buyRefused = await user.nextMessage({ match: /You have asked for a lot of quotes/ });
    expect(buyRefused.text).toContain(`You can get a new quote from ${formatClock(retryAt, "en", "NG")}.`);
    expect(buttons(buyRefused)).toContain("💸 Send money");
    // And for a payout started afresh: the typed amount is refused; with no quote to offer again, the menu.
    await nigerianRecipient(user);
    const payoutRefused = await typeAndRead(user, "7000", /You have asked for a lot of quotes/);
    expect(payoutRefused.text).toContain(`You can get a new quote from ${formatClock(retryAt, "en", "NG")}.`);
    expect(buttons(payoutRefused)).toContain("💸 Send money");
    expect(quoteCount(stack) - before).toBe(QUOTES_PER_WINDOW);

    // The budget is a window, not a ban: once it has passed, New quote quotes again.
    await stack.advanceClock(WINDOW_MS);
    if (!last) throw new Error("no refusal shown");
    await (await user.press(last, /New quote/)).answer();
    const fresh = await user.nextMessage({ match: /Your quote/, timeoutMs: 10_000 });
    expect(fresh.text).toContain("Recipient gets: ₦5,000.00");
    expect(quoteCount(stack) - before).toBe(QUOTES_PER_WINDOW + 1);
  }, 300_000);
});
