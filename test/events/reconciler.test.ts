import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseOrderCallback } from "#src/orders/index.js";
import { chatTexts, eventually, type Harness, settled, startHarness } from "./harness.ts";

let h: Harness;
const SIX_MINUTES = 6 * 60_000;

beforeAll(async () => {
  // Every webhook goes nowhere: the reconciler is the only way the bot learns anything in this file.
  h = await startHarness({ webhooksNowhere: true });
  await h.newPipeline().start();
});
afterAll(async () => {
  await h?.close();
});

const stageOf = async (orderId: string) => (await h.store.orders.get(orderId))?.stage;
const sandboxFault = (body: unknown) =>
  fetch(`${h.sandbox.origin}/_sandbox/faults`, {
    method: body === undefined ? "DELETE" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("the reconciler", () => {
  it("catches a paid order whose webhooks were lost, through the same card and notification path", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 4001 });
    await h.pay(placed);
    const log = h.sandbox.webhookLog().filter((record) => record.body.includes(placed.order.hash));
    expect(log.every((record) => record.status !== "delivered")).toBe(true);
    // Nothing arrives; the order is first due at its quote expiry. Move our clock there.
    await h.tg.idle({ quietMs: 300 });
    expect(await stageOf(placed.order.orderId)).toBe("awaiting_payment");
    h.clock.offsetMs = SIX_MINUTES;

    await eventually(
      async () => (await stageOf(placed.order.orderId)) === "completed",
      "completed via the API",
    );
    await settled(h, [placed.order.orderId]);
    const [card, ...notifications] = chatTexts(placed.user);
    expect(card).toMatch(/Completed/);
    expect(card).toMatch(/Payout reference: \S+/);
    // Both stages it went through, in order: the payment, then the payout.
    expect(notifications).toEqual([
      expect.stringMatching(/Payment received/),
      expect.stringMatching(/delivered to/),
    ]);
    // Paid, not expired, although its expiry has passed.
    expect((await h.store.orders.get(placed.order.orderId))?.stage).toBe("completed");
    h.clock.offsetMs = 0;
  });

  it("expires an unconfirmed quote by editing its quote card, without a notification", async () => {
    const placed = await h.placeOrder({ corridor: "KE", userId: 4002, confirmed: false });
    h.clock.offsetMs = SIX_MINUTES;
    await eventually(async () => (await stageOf(placed.order.orderId)) === "expired", "expired");
    await settled(h, [placed.order.orderId]);
    const messages = placed.user.messages();
    expect(messages).toHaveLength(1);
    expect(messages[0]?.message_id).toBe(placed.card?.message_id);
    expect(messages[0]?.text).toMatch(/This quote expired at \d{2}:\d{2} EAT/);
    const button = messages[0]?.reply_markup?.inline_keyboard[0]?.[0];
    expect(button?.text).toMatch(/New quote/);
    const data = button && "callback_data" in button ? button.callback_data : undefined;
    expect(parseOrderCallback(data)).toEqual({ action: "requote", orderId: placed.order.orderId });
    expect(Buffer.byteLength(data ?? "")).toBeLessThanOrEqual(64);
    h.clock.offsetMs = 0;
  });

  it("expires a confirmed but unpaid order on its status card, with one notification", async () => {
    const placed = await h.placeOrder({ corridor: "ZA", userId: 4003 });
    h.clock.offsetMs = SIX_MINUTES;
    await eventually(async () => (await stageOf(placed.order.orderId)) === "expired", "expired");
    await settled(h, [placed.order.orderId]);
    const [card, ...notifications] = placed.user.messages();
    expect(card?.message_id).toBe(placed.card?.message_id);
    expect(card?.text).toMatch(/Quote expired/);
    expect(card?.text).toMatch(/Do not pay the old invoice/);
    expect(card?.reply_markup?.inline_keyboard[0]?.[0]?.text).toMatch(/New quote/);
    expect(notifications.map((message) => message.text)).toEqual([expect.stringMatching(/expired/)]);
    h.clock.offsetMs = 0;
  });

  it("does not expire an order while the API cannot confirm it, and does once it can", async () => {
    const placed = await h.placeOrder({ corridor: "GH", userId: 4004 });
    await sandboxFault({ endpoint: "GET /order", mode: "500", times: 10_000 });
    const errorsBefore = await apiErrors();
    h.clock.offsetMs = SIX_MINUTES;
    await eventually(async () => (await apiErrors()) >= errorsBefore + 2, "the reconciler to try twice");
    expect(await stageOf(placed.order.orderId)).toBe("awaiting_payment");
    expect(chatTexts(placed.user)).toHaveLength(1);

    await sandboxFault(undefined);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "expired", "expired");
    await settled(h, [placed.order.orderId]);
    expect(chatTexts(placed.user)[0]).toMatch(/Quote expired/);
    h.clock.offsetMs = 0;
  });

  it("expires an unconfirmed payout quote at its deadline even while the API is down (its invoice was never shown)", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 4006, confirmed: false });
    await sandboxFault({ endpoint: "GET /order", mode: "500", times: 10_000 });
    await sandboxFault({ endpoint: "GET /transaction", mode: "500", times: 10_000 });
    try {
      h.clock.offsetMs = SIX_MINUTES;
      await eventually(async () => (await stageOf(placed.order.orderId)) === "expired", "expired");
      await settled(h, [placed.order.orderId]);
      const messages = placed.user.messages();
      expect(messages).toHaveLength(1);
      expect(messages[0]?.text).toMatch(/This quote expired at/);
    } finally {
      await sandboxFault(undefined);
      h.clock.offsetMs = 0;
    }
  });

  it("re-checks one order on demand (the ops button)", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 4005 });
    await h.pay(placed);
    expect(await h.pipeline.recheckOrder(placed.order.orderId)).toBe("queued");
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await settled(h, [placed.order.orderId]);
    expect(await h.pipeline.recheckOrder("00000-0000")).toBe("unknown_order");
    expect(await h.pipeline.recheckOrder(placed.order.orderId)).toBe("unchanged");
    // The card, then "payment received" and "delivered": nothing more from the second re-check.
    expect(chatTexts(placed.user)).toHaveLength(3);
  });
});

async function apiErrors(): Promise<number> {
  const { values } = await h.metrics.payoutApiErrors.get();
  return values.reduce((sum, value) => sum + value.value, 0);
}
