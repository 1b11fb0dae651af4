import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryRedis } from "#src/standins/local/memory-redis.js";
import { Outbox } from "#src/store/outbox.js";
import { freshRedis } from "../../support/redis.ts";

/**
 * The notification outbox on both stores it runs on: redis-server, and local mode's in-memory stand-in (whose Lua
 * has no cjson, which is why the record script reads entries without it).
 */
const stores: Array<[string, () => Promise<Redis>]> = [
  ["redis-server", freshRedis],
  ["in-memory stand-in", createMemoryRedis],
];

describe.each(stores)("outbox on %s", (_name, connect) => {
  let redis: Redis;
  let outbox: Outbox;
  beforeAll(async () => {
    redis = await connect();
    outbox = new Outbox(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("appends each new visible state once, in order, with what changed and whether to notify", async () => {
    const orderId = `ob-${Math.random().toString(36).slice(2)}`;
    // The untouched baseline (awaiting payment) is never an entry.
    expect(await outbox.record({ orderId, stage: "awaiting_payment" })).toEqual({
      appended: false,
      pending: false,
    });
    expect(await outbox.record({ orderId, stage: "payment_received" })).toEqual({
      appended: true,
      pending: true,
    });
    expect(await outbox.record({ orderId, stage: "payment_received" })).toEqual({
      appended: false,
      pending: true,
    });
    // A stage that did not change but shows more (a confirmation) is an entry without a notification.
    expect(await outbox.record({ orderId, stage: "payment_received", confirmations: 1 })).toEqual({
      appended: true,
      pending: true,
    });
    const reference = 'REF "quoted", with \\ and ,"key":';
    await outbox.record({ orderId, stage: "completed", payoutReference: reference });
    expect(await outbox.record({ orderId, stage: "completed", payoutReference: reference })).toEqual({
      appended: false,
      pending: true,
    });

    const { cursor, entries } = await outbox.pending(orderId);
    expect(cursor).toBe(0);
    expect(entries.map(({ seq, stage, notify, from }) => ({ seq, stage, notify, from }))).toEqual([
      { seq: 1, stage: "payment_received", notify: true, from: "awaiting_payment" },
      { seq: 2, stage: "payment_received", notify: false, from: "payment_received" },
      { seq: 3, stage: "completed", notify: true, from: "payment_received" },
    ]);
    expect(entries[1]?.confirmations).toBe(1);
    expect(entries[2]?.payoutReference).toBe(reference);

    await outbox.advance(orderId, 2);
    await outbox.advance(orderId, 1); // the cursor never moves back
    const later = await outbox.pending(orderId);
    expect(later.cursor).toBe(2);
    expect(later.entries.map((entry) => entry.seq)).toEqual([3]);
    await outbox.advance(orderId, 3);
    expect(await outbox.record({ orderId, stage: "completed", payoutReference: reference })).toEqual({
      appended: false,
      pending: false,
    });
  });
});
