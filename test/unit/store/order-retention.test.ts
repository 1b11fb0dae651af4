import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, keys, type Store } from "#src/store/index.js";
import { BOTH_STORES, ngnOrder } from "../../support/store-fixtures.ts";

const DAY_S = 24 * 3600;
const RETENTION_S = 3 * DAY_S;

/** Every key that points at an order, and every index that lists it (store/order-retention.ts). */
async function traces(redis: Redis, userId: number, orderId: string) {
  const [record, byHash, byQuote, outbox, cursor, attempts] = await Promise.all(
    [
      keys.order(orderId),
      keys.orderByHash(`h-${orderId}`),
      keys.orderByQuote(`q-${orderId}`),
      keys.outbox(orderId),
      keys.outboxCursor(orderId),
      keys.reconcileAttempts(orderId),
    ].map((key) => redis.exists(key)),
  );
  const [history, all, open, undelivered, openQuotes] = await Promise.all(
    [
      keys.userOrders(userId),
      keys.ordersAll(),
      keys.ordersOpen(),
      keys.ordersUndelivered(),
      keys.userQuotesOpen(userId),
    ].map((key) => redis.zscore(key, orderId)),
  );
  return { record, byHash, byQuote, outbox, cursor, attempts, history, all, open, undelivered, openQuotes };
}

describe.each(BOTH_STORES)("retention of unpaid orders on %s", (_name, connect) => {
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

  it("an order that ends unpaid keeps 3 days, then leaves every index; a paid order stays", async () => {
    await store.orders.create(ngnOrder("unpaid"));
    await store.orders.create(ngnOrder("paid"));
    expect(await redis.zrange(keys.userQuotesOpen(42), 0, -1)).toEqual(
      expect.arrayContaining(["unpaid", "paid"]),
    );
    // What an order collects while it waits: confirmed (not yet delivered), checked by the reconciler.
    await store.orders.annotate("unpaid", { confirmedAt: new Date().toISOString() });
    await store.reconcileAttempts.next("unpaid");

    await store.orders.transition("paid", { stage: "payment_received" });
    await store.orders.transition("paid", { stage: "completed" });
    // The reconciler's expiry: the change and the outbox entry that tells the user, in one script.
    await store.orders.transition(
      "unpaid",
      { stage: "expired" },
      { record: { states: () => [{ state: { stage: "expired" } }] } },
    );
    await store.outbox.advance("unpaid", 1);

    // Neither holds an open quote of its owner any more (the quote budget counts them no longer).
    expect(await redis.zcard(keys.userQuotesOpen(42))).toBe(0);
    // The unpaid one and its lookups live 3 days from now; the paid one 90 days, as before.
    for (const key of [keys.order("unpaid"), keys.orderByHash("h-unpaid"), keys.orderByQuote("q-unpaid")]) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(RETENTION_S - 60);
      expect(ttl).toBeLessThanOrEqual(RETENTION_S);
    }
    expect(await redis.ttl(keys.order("paid"))).toBeGreaterThan(89 * DAY_S);
    const dropAt = Number(await redis.zscore(keys.ordersRetiring(), "42:unpaid"));
    expect(dropAt).toBeGreaterThan(Date.now() + (RETENTION_S - 60) * 1000);
    expect(await redis.zscore(keys.ordersRetiring(), "42:paid")).toBeNull();

    // Not before its time.
    expect(await store.orders.dropRetired(Date.now())).toBe(0);
    expect(await traces(redis, 42, "unpaid")).toMatchObject({ record: 1, history: expect.any(String) });

    // Past it, the sweep drops the record, its entries in every index and the keys kept per order.
    expect(await store.orders.dropRetired(dropAt)).toBe(1);
    expect(await traces(redis, 42, "unpaid")).toEqual({
      record: 0,
      byHash: 1, // expires with its TTL (checked above)
      byQuote: 1,
      outbox: 0,
      cursor: 0,
      attempts: 0,
      history: null,
      all: null,
      open: null,
      undelivered: null,
      openQuotes: null,
    });
    expect(await redis.zcard(keys.ordersRetiring())).toBe(0);
    // The paid order is untouched.
    expect(await traces(redis, 42, "paid")).toMatchObject({
      record: 1,
      byHash: 1,
      byQuote: 1,
      history: expect.any(String),
      all: expect.any(String),
    });
    expect(await store.orders.listForUser(42)).toMatchObject({ total: 1, orders: [{ orderId: "paid" }] });
  });

  it("a change to an ended order keeps its short TTL and its one place in the retiring set", async () => {
    await store.orders.create(ngnOrder("dropped"));
    // Refresh drops a quote this way (src/bot/rules/supersede.ts).
    await store.orders.transition("dropped", { stage: "expired", failureReason: "superseded" });
    const dropAt = await redis.zscore(keys.ordersRetiring(), "42:dropped");
    await store.orders.annotate("dropped", { quoteMessageId: 7 });
    expect(await redis.ttl(keys.order("dropped"))).toBeLessThanOrEqual(RETENTION_S);
    expect(await redis.zscore(keys.ordersRetiring(), "42:dropped")).toBe(dropAt);
  });

  it("orders:all forgets what is older than an order's lifetime", async () => {
    await redis.zadd(keys.ordersAll(), Date.now() - 91 * DAY_S * 1000, "ancient");
    await store.orders.create(ngnOrder("new"));
    expect(await redis.zrange(keys.ordersAll(), 0, -1)).toEqual(["new"]);
  });

  it("a cancelled quote retires like an expired one; a payment after all revives it for good", async () => {
    await store.orders.create(ngnOrder("dropped"));
    await store.orders.transition("dropped", { stage: "cancelled" });
    expect(await store.orders.get("dropped")).toMatchObject({
      stage: "cancelled",
      cancelledAt: expect.any(String),
    });
    expect(await redis.ttl(keys.order("dropped"))).toBeLessThanOrEqual(RETENTION_S);
    expect(await redis.zscore(keys.ordersRetiring(), "42:dropped")).not.toBeNull();
    expect(await redis.zscore(keys.ordersOpen(), "dropped")).toBeNull();
    // Its quote running out later changes nothing: it was cancelled, not expired.
    expect((await store.orders.transition("dropped", { stage: "expired" }))?.changed).toBe(false);

    // The quote was paid at the provider all the same: the order moves on and is followed again.
    const followUp = Date.now() + 60_000;
    const revived = await store.orders.transition(
      "dropped",
      { stage: "payment_received" },
      { followUpAt: () => followUp },
    );
    expect(revived).toMatchObject({ changed: true, order: { stage: "payment_received" } });
    expect(await redis.zscore(keys.ordersRetiring(), "42:dropped")).toBeNull();
    expect(Number(await redis.zscore(keys.ordersOpen(), "dropped"))).toBe(followUp);
    const lookups = [keys.orderByHash("h-dropped"), keys.orderByQuote("q-dropped")];
    for (const key of [keys.order("dropped"), ...lookups]) {
      expect(await redis.ttl(key)).toBeGreaterThan(89 * DAY_S);
    }
    expect(await store.orders.dropRetired(Date.now() + 4 * DAY_S * 1000)).toBe(0);
    expect(await store.orders.get("dropped")).toMatchObject({ stage: "payment_received" });
  });

  it("stamps every order time on the clock it is given (the API's), not this host's", async () => {
    const apiNow = Date.now() + 3 * DAY_S * 1000;
    const clocked = createStore(redis, () => apiNow);
    const order = await clocked.orders.create(ngnOrder("ahead"));
    expect(order.createdAt).toBe(new Date(apiNow).toISOString());
    expect(Number(await redis.zscore(keys.userOrders(42), "ahead"))).toBe(apiNow);
    expect(Number(await redis.zscore(keys.ordersAll(), "ahead"))).toBe(apiNow);
    const cancelled = await clocked.orders.transition("ahead", { stage: "cancelled" });
    expect(cancelled?.order).toMatchObject({
      updatedAt: new Date(apiNow).toISOString(),
      cancelledAt: new Date(apiNow).toISOString(),
    });
  });
});
