import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Outbox } from "#src/store/outbox.js";
import { BOTH_STORES } from "../../support/store-fixtures.ts";

/**
 * The notification outbox on both stores it runs on: redis-server, and local mode's in-memory stand-in (whose Lua
 * has no cjson, which is why the record script reads entries without it).
 */
describe.each(BOTH_STORES)("outbox on %s", (_name, connect) => {
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
    expect(await outbox.record({ orderId, stage: "awaiting_payment" })).toBe(false);
    expect(await outbox.record({ orderId, stage: "payment_received" })).toBe(true);
    expect(await outbox.record({ orderId, stage: "payment_received" })).toBe(false);
    // A stage that did not change but shows more (a confirmation) is an entry without a notification.
    expect(await outbox.record({ orderId, stage: "payment_received", confirmations: 1 })).toBe(true);
    const reference = 'REF "quoted", with \\ and ,"key":';
    await outbox.record({ orderId, stage: "completed", payoutReference: reference });
    expect(await outbox.record({ orderId, stage: "completed", payoutReference: reference })).toBe(false);

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
    expect(await outbox.record({ orderId, stage: "completed", payoutReference: reference })).toBe(false);
  });
  it("sets a webhook's dedupe mark in the script that records its states, appended or not", async () => {
    const orderId = `ob-${Math.random().toString(36).slice(2)}`;
    const first = { key: `events:seen:${orderId}:1`, ttlSeconds: 600 };
    const second = { key: `events:seen:${orderId}:2`, ttlSeconds: 600 };
    expect(await outbox.recordAll(orderId, [{ state: { stage: "payment_received" } }], { mark: first })).toBe(
      1,
    );
    expect(await redis.get(first.key)).toBe("1");
    expect(await redis.ttl(first.key)).toBeGreaterThan(590);
    // A repeat of the state (a second delivery of the event under another identity) appends nothing, and is marked.
    expect(
      await outbox.recordAll(orderId, [{ state: { stage: "payment_received" } }], { mark: second }),
    ).toBe(0);
    expect(await redis.get(second.key)).toBe("1");
    // Without a mark, nothing else is written.
    const before = await redis.keys(`events:seen:${orderId}:*`);
    await outbox.recordAll(orderId, [{ state: { stage: "completed" } }]);
    expect(await redis.keys(`events:seen:${orderId}:*`)).toEqual(expect.arrayContaining(before));
    expect((await redis.keys(`events:seen:${orderId}:*`)).length).toBe(2);
    expect((await outbox.pending(orderId)).entries.map((entry) => entry.stage)).toEqual([
      "payment_received",
      "completed",
    ]);
  });
  it("never appends a state behind its tail: a lower stage, or the same stage with fewer confirmations", async () => {
    const orderId = `ob-${Math.random().toString(36).slice(2)}`;
    // Two ingests of one order overlapping: the later event's states recorded first, in one call.
    expect(
      await outbox.recordAll(orderId, [
        { state: { stage: "payment_received" }, onlyAfter: "awaiting_payment" },
        { state: { stage: "payout_sent", confirmations: 2 } },
      ]),
    ).toBe(2);
    // The slower one arrives after: neither its earlier stage nor its older count is appended.
    expect(await outbox.record({ orderId, stage: "payment_received" })).toBe(false);
    expect(await outbox.record({ orderId, stage: "payout_sent", confirmations: 1 })).toBe(false);
    expect(await outbox.record({ orderId, stage: "payout_sent", confirmations: 3 })).toBe(true);
    const { entries } = await outbox.pending(orderId);
    expect(entries.map(({ stage, confirmations }) => [stage, confirmations])).toEqual([
      ["payment_received", undefined],
      ["payout_sent", 2],
      ["payout_sent", 3],
    ]);
  });

  it("keeps an order in the due set from its record until its cursor reaches the end", async () => {
    const orderId = `ob-${Math.random().toString(36).slice(2)}`;
    const dueAt = 1_000;
    await outbox.record({ orderId, stage: "payment_received" }, { dueAt });
    // Recorded again while pending: it keeps its first due time.
    await outbox.record({ orderId, stage: "completed" }, { dueAt: dueAt + 500 });
    const overdue = async (now: number) =>
      (await outbox.overdue(now, 1_000)).filter((entry) => entry.orderId === orderId);
    expect(await overdue(dueAt - 1)).toEqual([]);
    expect(await overdue(dueAt)).toEqual([{ orderId, dueAt }]);
    // Handed to a queued job: out of the sweep's way until then.
    await outbox.deferDue(orderId, dueAt + 60_000);
    expect(await overdue(dueAt + 59_999)).toEqual([]);
    await outbox.advance(orderId, 1);
    expect(await overdue(dueAt + 60_000)).toEqual([{ orderId, dueAt: dueAt + 60_000 }]);
    await outbox.advance(orderId, 2);
    expect(await overdue(Number.MAX_SAFE_INTEGER)).toEqual([]);
    // Caught up, nothing new: a repeated record does not bring it back.
    await outbox.record({ orderId, stage: "completed" }, { dueAt });
    expect(await overdue(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it("keeps the mark of the notification being sent in the cursor key until the cursor moves past it", async () => {
    const orderId = `ob-${Math.random().toString(36).slice(2)}`;
    await outbox.recordAll(orderId, [
      { state: { stage: "payment_received" } },
      { state: { stage: "completed" } },
    ]);
    await outbox.markSending(orderId, 1);
    expect(await outbox.pending(orderId)).toMatchObject({ cursor: 0, sending: 1 });
    // A refusal: nothing reached the chat, the mark goes and the entry is still pending.
    await outbox.clearSending(orderId, 1);
    expect(await outbox.pending(orderId)).toMatchObject({ cursor: 0, sending: 0 });
    await outbox.markSending(orderId, 1);
    await outbox.advance(orderId, 1);
    expect(await outbox.pending(orderId)).toMatchObject({ cursor: 1, sending: 0 });
    await outbox.markSending(orderId, 2);
    // A delivery that finds nothing new (advance to where it is) still clears a mark left behind.
    await outbox.advance(orderId, 0);
    expect(await outbox.pending(orderId)).toMatchObject({ cursor: 1, sending: 0 });
  });
});
