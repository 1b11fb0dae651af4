import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeliverMissing } from "#src/bot/recovery.js";
import type { Config } from "#src/config.js";
import { createRecoverySweep, DEFAULT_RECOVERY_OPTIONS } from "#src/events/recovery.js";
import { silentLogger } from "#src/log/logger.js";
import { chatTexts, eventually, type Harness, settled, startHarness } from "./harness.ts";

/**
 * The state a crash between Confirm and the invoice leaves: the order is confirmed (so in `orders:undelivered`)
 * and nothing was sent. The sweep sends the invoice and the status card exactly once, even with two sweeps (two
 * processes) running at the same moment, and records the delivery on the order.
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function deliverMissing() {
  return createDeliverMissing({
    api: h.api,
    store: h.store,
    translator: h.translator,
    accountLanguage: { value: undefined },
    config: { payout: { env: "sandbox" } } as Config,
    logger: silentLogger(),
    now: Date.now,
    telegram: h.telegram,
  });
}

function sweeper() {
  return createRecoverySweep({
    store: h.store,
    deliver: deliverMissing(),
    logger: silentLogger(),
    now: Date.now,
    options: { ...DEFAULT_RECOVERY_OPTIONS, graceMs: 0 },
  });
}

describe("recovery of confirmed orders whose messages never went out", () => {
  it("two sweeps at once send the payout's invoice (QR + BOLT11) and status card exactly once", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 4101, card: false });
    expect(placed.order.confirmedAt).toBeDefined();
    expect(await h.redis.zscore("orders:undelivered", placed.order.orderId)).not.toBeNull();

    const [first, second] = [sweeper(), sweeper()];
    const outcomes = await Promise.all([first.sweep(), second.sweep()]);
    const results = outcomes.map((outcome) => outcome[placed.order.orderId]).sort();
    expect(results).toEqual(["claimed_elsewhere", "delivered"]);
    // And a later sweep finds nothing left to do.
    expect(await first.sweep()).toEqual({});

    await h.tg.idle();
    const messages = placed.user.messages();
    expect(messages).toHaveLength(3);
    expect(messages[0]?.photo).toBeDefined();
    expect(messages[0]?.caption).toContain(placed.order.verificationCode);
    expect(messages[1]?.text).toContain(placed.quote.invoice);
    expect(messages[2]?.text).toContain(`order ${placed.order.orderId}`);

    const order = await h.store.orders.get(placed.order.orderId);
    expect(order).toMatchObject({
      invoiceMessageId: messages[0]?.message_id,
      statusMessageId: messages[2]?.message_id,
    });
    expect(order?.deliveredAt).toBeDefined();
    expect(await h.redis.zscore("orders:undelivered", placed.order.orderId)).toBeNull();
  });

  it("a buy gets its status card (its transfer details were on the quote card before Confirm); a delivered order is left alone", async () => {
    const buy = await h.placeOrder({ corridor: "BUY", userId: 4102, card: false });
    const delivered = await h.placeOrder({ corridor: "NG", userId: 4103 });
    await h.store.orders.annotate(delivered.order.orderId, { deliveredAt: new Date().toISOString() });

    const outcome = await sweeper().sweep();
    expect(outcome[buy.order.orderId]).toBe("delivered");
    expect(outcome[delivered.order.orderId]).toBeUndefined();
    await h.tg.idle();
    const messages = buy.user.messages();
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toContain(`order ${buy.order.orderId}`);
    expect((await h.store.orders.get(buy.order.orderId))?.statusMessageId).toBe(messages[0]?.message_id);
    expect(delivered.user.messages()).toHaveLength(1);
  });

  it("one sender of the status card: the pipeline waits while the flow holds it, then edits the card the sweep sent", async () => {
    const pipeline = h.newPipeline();
    await pipeline.start();
    const placed = await h.placeOrder({ corridor: "NG", userId: 4105, card: false });
    const { orderId } = placed.order;
    await h.pay(placed);
    await eventually(async () => (await h.store.orders.get(orderId))?.stage === "completed", "completed");
    // Confirm claimed the card for the flow, whose process is gone: the pipeline sends no card of its own.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(placed.user.messages()).toEqual([]);

    expect((await sweeper().sweep())[orderId]).toBe("delivered");
    await settled(h, [orderId]);
    const messages = placed.user.messages();
    expect(messages[0]?.message_id).toBe((await h.store.orders.get(orderId))?.statusMessageId);
    const texts = chatTexts(placed.user);
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(/Completed/);
    expect(texts[1]).toMatch(/Payment received/);
    expect(texts[2]).toMatch(/delivered to/);
    await pipeline.stop();
  });

  it("the pipeline sweeps at start: a process that died after Confirm is repaired by the next one", async () => {
    const placed = await h.placeOrder({ corridor: "KE", userId: 4104, card: false });
    const pipeline = h.newPipeline({ deliverMissing: deliverMissing(), recovery: { graceMs: 0 } });
    await pipeline.start();
    await eventually(async () => (await h.store.orders.get(placed.order.orderId))?.deliveredAt, "recovered");
    await h.tg.idle();
    expect(placed.user.messages().map((message) => (message.photo ? "photo" : "text"))).toEqual([
      "photo",
      "text",
      "text",
    ]);
  });
});
