import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatTexts, eventually, type Harness, settled, startHarness } from "./harness.ts";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.newPipeline().start();
});
afterAll(async () => {
  await h?.close();
});

describe("every corridor, live webhooks from the sandbox", () => {
  it.each([
    ["NG", 2001, /₦10,000\.00 was delivered/],
    ["KE", 2002, /KSh 1,500\.00 was delivered/],
    ["ZA", 2003, /R 1,000\.00 was delivered/],
    ["GH", 2004, /GH₵ 500\.00 was delivered/],
  ] as const)(
    "%s payout: one card edited to completed, two notifications in order",
    async (corridor, userId, delivered) => {
      const placed = await h.placeOrder({ corridor, userId });
      await h.pay(placed);
      await eventually(
        async () => (await h.store.orders.get(placed.order.orderId))?.stage === "completed",
        `${corridor} order completed`,
      );
      await settled(h, [placed.order.orderId]);

      const texts = chatTexts(placed.user);
      expect(texts).toHaveLength(3);
      const [card, received, done] = texts;
      expect(card).toMatch(/Completed/);
      expect(card).toMatch(delivered);
      expect(card).toMatch(/Payout reference: \S+/);
      expect(received).toMatch(/Payment received for order/);
      // The label holds "<" and ">": escaped for Telegram HTML, shown verbatim to the user.
      expect(done).toMatch(new RegExp(`delivered to Recipient <${corridor}> ••0000`));
      // The card message is the one the bot created: edited in place, not replaced.
      expect(placed.user.messages()[0]?.message_id).toBe(placed.card?.message_id);
      const stored = await h.store.orders.get(placed.order.orderId);
      expect(stored?.payoutReference).toBeTruthy();
      expect(stored?.payoutReference).not.toBe(placed.order.hash);
    },
  );

  it("a payout the provider rejects fails with the held-funds explanation and alerts ops", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 2010, fail: true });
    await h.pay(placed);
    await eventually(
      async () => (await h.store.orders.get(placed.order.orderId))?.stage === "failed",
      "order failed",
    );
    await settled(h, [placed.order.orderId]);
    const [card, received, failed, ...rest] = chatTexts(placed.user);
    expect(rest).toEqual([]);
    expect(card).toMatch(/Failed/);
    expect(card).toMatch(/sats you paid is held for you: tap “Get my sats back”/);
    expect(card).toContain(placed.order.orderId);
    expect(received).toMatch(/Payment received/);
    expect(failed).toMatch(/failed/);
    await eventually(
      () => h.alerts.find((alert) => alert.type === "order_failed" && alert.orderId === placed.order.orderId),
      "the failure alert",
    );
    const alert = h.alerts.filter((a) => a.type === "order_failed" && a.orderId === placed.order.orderId);
    expect(alert).toHaveLength(1);
    expect(alert[0]).toMatchObject({ failureReason: "payout_failed", previousStage: "payment_received" });
  });

  it("on-chain buy: bitcoin sent with txid, confirmations 0/3 → 3/3, then done", async () => {
    const placed = await h.placeOrder({ corridor: "BUY", userId: 2020 });
    await h.pay(placed);
    const sent = await eventually(async () => {
      const order = await h.store.orders.get(placed.order.orderId);
      return order?.stage === "payout_sent" && order.txid ? order : undefined;
    }, "bitcoin sent");
    await eventually(() => chatTexts(placed.user)[0]?.includes("Confirmations: 0/3"), "card shows 0/3");
    expect(chatTexts(placed.user)[0]).toContain(sent.txid);

    for (const expected of [1, 2]) {
      h.sandbox.mineBlocks(1);
      await eventually(
        () => chatTexts(placed.user)[0]?.includes(`Confirmations: ${expected}/3`),
        `card shows ${expected}/3 (found by the reconciler: no webhook carries it)`,
      );
    }
    h.sandbox.mineBlocks(1);
    await eventually(
      async () => (await h.store.orders.get(placed.order.orderId))?.stage === "completed",
      "buy completed",
    );
    await settled(h, [placed.order.orderId]);
    const [card, ...notifications] = chatTexts(placed.user);
    expect(card).toMatch(/Completed/);
    expect(card).toContain("Confirmations: 3/3");
    expect(card).toContain(sent.txid);
    // Confirmations edit the card silently: one buzz per stage only.
    expect(notifications).toHaveLength(3);
    expect(notifications[0]).toMatch(/Payment received/);
    expect(notifications[1]).toMatch(/bitcoin is on its way/);
    expect(notifications[2]).toMatch(/confirmed on-chain/);
  });
});
