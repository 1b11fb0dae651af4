import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cardHeldFor, createStore, type Store } from "#src/store/index.js";
import { BOTH_STORES, ngnOrder } from "../../support/store-fixtures.ts";

const order = ngnOrder("ord-card");

/**
 * The one status card's claim on the order (src/store/status-card-claim.ts): Confirm claims it for the flow, a
 * second sender finds it held (or recorded, then edits), the recovery sweep takes it over, and the first card
 * recorded wins.
 */
describe.each(BOTH_STORES)("status card claims on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  let now = 1_000_000;
  beforeAll(async () => {
    redis = await connect();
    store = createStore(redis, () => now);
  });
  beforeEach(async () => {
    await redis.flushdb();
    now = 1_000_000;
    await store.orders.create(order);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("Confirm claims the card for the flow: a delivery finds it held until the flow records it, then edits it", async () => {
    await store.orders.annotate(order.orderId, { confirmedAt: new Date(now).toISOString() });
    expect((await store.orders.get(order.orderId))?.statusCardClaim?.by).toBe("flow");
    expect(await store.statusCards.claim(order.orderId, "delivery", 30_000)).toMatchObject({
      kind: "busy",
      by: "flow",
    });
    expect(await store.statusCards.claim(order.orderId, "flow", 30_000)).toMatchObject({ kind: "send" });
    const recorded = await store.statusCards.record(order.orderId, 501);
    expect(recorded?.statusMessageId).toBe(501);
    expect(recorded?.statusCardClaim).toBeUndefined();
    expect(await store.statusCards.claim(order.orderId, "delivery", 30_000)).toMatchObject({
      kind: "recorded",
      messageId: 501,
    });
  });

  it("the flow that read its own fresh claim may send without claiming again; near its end, or another's, it may not", async () => {
    await store.orders.annotate(order.orderId, { confirmedAt: new Date(now).toISOString() });
    const read = (await store.orders.get(order.orderId))!;
    expect(cardHeldFor(read, "flow", now, 30_000)).toBe(true);
    expect(cardHeldFor(read, "delivery", now, 30_000)).toBe(false);
    expect(cardHeldFor(read, "flow", now + 40_000, 30_000)).toBe(false);
    expect(cardHeldFor({ ...read, statusCardClaim: undefined }, "flow", now, 30_000)).toBe(false);
  });

  it("a claim lapses on the app's clock; the recovery sweep takes a live one over", async () => {
    await store.orders.annotate(order.orderId, { confirmedAt: new Date(now).toISOString() });
    expect(await store.statusCards.claim(order.orderId, "recovery", 30_000, true)).toMatchObject({
      kind: "send",
    });
    expect(await store.statusCards.claim(order.orderId, "flow", 30_000)).toMatchObject({
      kind: "busy",
      by: "recovery",
    });
    now += 30_001;
    expect(await store.statusCards.claim(order.orderId, "delivery", 30_000)).toMatchObject({ kind: "send" });
  });

  it("the first card recorded wins; a later one replaces it only when it names the card it replaces", async () => {
    expect((await store.statusCards.record(order.orderId, 600))?.statusMessageId).toBe(600);
    expect((await store.statusCards.record(order.orderId, 601))?.statusMessageId).toBe(600);
    expect((await store.statusCards.record(order.orderId, 602, 600))?.statusMessageId).toBe(602);
  });
});
