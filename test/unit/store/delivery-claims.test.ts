import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, keys, ProcessRegistry, type Store } from "#src/store/index.js";
import { BOTH_STORES, ngnOrder } from "../../support/store-fixtures.ts";

const order = ngnOrder("ord-claim");

describe.each(BOTH_STORES)("delivery claims on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  beforeAll(async () => {
    redis = await connect();
    store = createStore(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
    await store.orders.create(order);
    await store.users.touch({ id: 42, firstName: "Ada", telegramLanguage: "fr" });
    await store.users.touch({ id: 7, firstName: "Someone else" });
    await store.outbox.record({ orderId: order.orderId, stage: "payment_received" });
    await store.outbox.record({ orderId: order.orderId, stage: "payout_sent" });
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("takes a free order's lock and reads its undelivered entries, the order and the named owner at once", async () => {
    await store.outbox.advance(order.orderId, 1);
    const claim = await store.deliveryClaims.claim(order.orderId, 42);
    expect(claim).toBeDefined();
    expect(await redis.get(keys.orderLock(order.orderId))).toBe(claim?.lock.token);
    expect(claim?.pending.cursor).toBe(1);
    expect(claim?.pending.entries.map((entry) => [entry.seq, entry.stage])).toEqual([[2, "payout_sent"]]);
    expect(claim?.pending.sending).toBe(0);
    expect(claim?.order?.orderId).toBe(order.orderId);
    expect(claim?.owner).toMatchObject({ id: 42, firstName: "Ada" });
    // A second delivery finds it taken until the first lets go.
    expect(await store.deliveryClaims.claim(order.orderId, 42)).toBeUndefined();
    await claim?.lock.release();
    expect(await redis.exists(keys.orderLock(order.orderId))).toBe(0);
    const again = await store.deliveryClaims.claim(order.orderId, 42);
    expect(again?.pending.entries).toHaveLength(1);
    await again?.lock.release();
  });

  it("is taken by the script that writes a transition, only when it appended states and the lock was free", async () => {
    const fresh = ngnOrder("ord-transition-claim");
    await store.orders.create(fresh);
    const lockKey = keys.orderLock(fresh.orderId);
    const move = (stage: "payment_received" | "payout_sent") =>
      store.orders.transition(
        fresh.orderId,
        { stage },
        {
          record: { states: ({ order: moved }) => [{ state: moved }] },
          claim: {},
        },
      );

    const received = await move("payment_received");
    expect(received).toMatchObject({ changed: true, appended: 1 });
    const claim = received?.claim;
    expect(await redis.get(lockKey)).toBe(claim?.lock.token);
    expect(claim?.pending.entries.map((entry) => [entry.seq, entry.stage])).toEqual([
      [1, "payment_received"],
    ]);
    expect(claim?.pending).toMatchObject({ cursor: 0, sending: 0 });
    expect(claim?.order).toMatchObject({ orderId: fresh.orderId, stage: "payment_received" });
    expect(claim?.owner).toMatchObject({ id: 42, firstName: "Ada" });

    // The lock is held: the next transition is written and recorded all the same, without a claim.
    const sent = await move("payout_sent");
    expect(sent).toMatchObject({ changed: true, appended: 1 });
    expect(sent?.claim).toBeUndefined();
    expect(await redis.get(lockKey)).toBe(claim?.lock.token);
    await claim?.lock.release();

    // Nothing appended (the same state again): no lock is taken.
    const again = await move("payout_sent");
    expect(again).toMatchObject({ changed: false, appended: 0 });
    expect(again?.claim).toBeUndefined();
    expect(await redis.exists(lockKey)).toBe(0);
    expect((await store.outbox.pending(fresh.orderId)).entries.map((entry) => entry.stage)).toEqual([
      "payment_received",
      "payout_sent",
    ]);
  });

  it("reads the mark of a notification in flight", async () => {
    await store.outbox.markSending(order.orderId, 1);
    const claim = await store.deliveryClaims.claim(order.orderId, 42);
    expect(claim?.pending.cursor).toBe(0);
    expect(claim?.pending.sending).toBe(1);
    expect(claim?.pending.entries).toHaveLength(2);
    await claim?.lock.release();
  });

  it("reads the order's real owner when the caller named someone else or nobody", async () => {
    const named = await store.deliveryClaims.claim(order.orderId, 7);
    expect(named?.owner).toMatchObject({ id: 42, firstName: "Ada" });
    await named?.lock.release();
    const unnamed = await store.deliveryClaims.claim(order.orderId, undefined);
    expect(unnamed?.owner).toMatchObject({ id: 42, firstName: "Ada" });
    await unnamed?.lock.release();
  });

  it("claims an order that is gone, with nothing to read (the delivery then moves its cursor on)", async () => {
    await redis.del(keys.order(order.orderId));
    const claim = await store.deliveryClaims.claim(order.orderId, 42);
    expect(claim?.order).toBeUndefined();
    expect(claim?.owner).toBeUndefined();
    expect(claim?.pending.entries).toHaveLength(2);
    await claim?.lock.release();
  });

  it("leaves a live owner's lock alone and takes over a dead owner's, then reads", async () => {
    const holder = new ProcessRegistry(redis, { ttlMs: 60_000 });
    const me = new ProcessRegistry(redis, { ttlMs: 60_000 });
    await holder.start();
    await me.start();
    const held = `${holder.id}:token`;
    await redis.set(keys.orderLock(order.orderId), held, "PX", 60_000);
    expect(await store.deliveryClaims.claim(order.orderId, 42, { processes: me })).toBeUndefined();
    expect(await redis.get(keys.orderLock(order.orderId))).toBe(held);

    await holder.stop();
    const claim = await store.deliveryClaims.claim(order.orderId, 42, { processes: me });
    expect(claim?.lock.token.startsWith(`${me.id}:`)).toBe(true);
    expect(await redis.get(keys.orderLock(order.orderId))).toBe(claim?.lock.token);
    expect(claim?.pending.entries).toHaveLength(2);
    expect(claim?.order?.orderId).toBe(order.orderId);
    expect(claim?.owner).toMatchObject({ id: 42 });
    await claim?.lock.release();
    await me.stop();
  });
});
