import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, keys, QuoteBudgetExceeded, type Store } from "#src/store/index.js";
import { BOTH_STORES, ngnOrder } from "../../support/store-fixtures.ts";

const LIMITS = { maxOpen: 2, maxInWindow: 3, windowMs: 10 * 60_000 };
const USER = 42;

async function refusal(attempt: Promise<void>): Promise<number> {
  const error = await attempt.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(QuoteBudgetExceeded);
  return (error as QuoteBudgetExceeded).retryAtMs;
}

describe.each(BOTH_STORES)("the quote budget on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  beforeAll(async () => {
    redis = await connect();
    store = createStore(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
  });

  /** Take the budget for `action` at `now` and make its order (open until `expiresAt`), as a quote does. */
  async function quote(action: string, now: number, expiresAt: number): Promise<void> {
    await store.quoteBudget.reserve(USER, action, now, LIMITS);
    await store.orders.create({ ...ngnOrder(action), expiresAt: new Date(expiresAt).toISOString() });
    await store.quoteBudget.settle(USER, action);
  }

  it("refuses a quote past the open limit until one is paid, dropped or expired", async () => {
    const now = Date.now();
    await quote("a", now, now + 300_000);
    await quote("b", now, now + 200_000);
    // Two open: the next is possible when the first of them expires.
    expect(await refusal(store.quoteBudget.reserve(USER, "c", now, LIMITS))).toBe(now + 200_000);
    // Refresh drops the quote it replaces: its slot is free at once.
    await store.orders.transition("a", { stage: "expired", failureReason: "superseded" });
    await store.quoteBudget.reserve(USER, "c", now, LIMITS);
    // A pending quote holds a slot too, until its order exists or it failed.
    expect(await refusal(store.quoteBudget.reserve(USER, "d", now, LIMITS))).toBeGreaterThan(now);
    await store.quoteBudget.settle(USER, "c");
    // Past b's expiry nothing is open any more.
    await store.quoteBudget.reserve(USER, "e", now + 200_001, { ...LIMITS, maxInWindow: 10 });
  });

  it("refuses more quotes than the window allows until the oldest leaves it; a retry of one action is free", async () => {
    const t0 = Date.now();
    const open = { ...LIMITS, maxOpen: 100 };
    for (const [action, at] of [
      ["a", t0],
      ["b", t0 + 1_000],
      ["c", t0 + 2_000],
    ] as const) {
      await store.quoteBudget.reserve(USER, action, at, open);
      await store.quoteBudget.settle(USER, action);
    }
    expect(await refusal(store.quoteBudget.reserve(USER, "d", t0 + 5_000, open))).toBe(t0 + LIMITS.windowMs);
    // The same action again (a takeover of a quote in flight, a redelivered press) is not a new quote.
    await store.quoteBudget.reserve(USER, "c", t0 + 5_000, open);
    await store.quoteBudget.reserve(USER, "d", t0 + LIMITS.windowMs + 1, open);
    // The sets hold only what the window and the open quotes need, and expire when the user goes quiet.
    expect(await redis.zrange(keys.userQuotesAsked(USER), 0, -1)).toEqual(["b", "c", "d"]);
    expect(await redis.pttl(keys.userQuotesAsked(USER))).toBeGreaterThan(0);
    expect(await redis.pttl(keys.userQuotesOpen(USER))).toBeGreaterThan(0);
  });

  it("takes the budget atomically: of 20 quotes asked at once, exactly the window's 3 go through", async () => {
    const now = Date.now();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        store.quoteBudget.reserve(USER, `burst-${index}`, now, { ...LIMITS, maxOpen: 100 }),
      ),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(3);
    expect(await redis.zcard(keys.userQuotesAsked(USER))).toBe(3);
  });
});
