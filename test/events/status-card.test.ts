import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createTranslator, type TFunction } from "#src/i18n/index.js";
import { createLogger } from "#src/log/logger.js";
import {
  parseOrderCallback,
  paymentEventFacts,
  refundCallbackData,
  renderNotification,
  renderQuoteExpired,
  renderReceipt,
  renderStatusCard,
  requoteCallbackData,
  transactionFits,
  transitionFromApiState,
  transitionFromPaymentEvent,
} from "#src/orders/index.js";
import { ORDER_STAGES, type OrderRecord } from "#src/store/index.js";

let t: TFunction;
const logged: string[] = [];
beforeAll(async () => {
  // A missing key is logged by the translator: collect the log to prove every key the cards use exists.
  const destination = { write: (line: string) => logged.push(line) };
  t = (await createTranslator({ logger: createLogger({ level: "warn", pretty: false, destination }) })).t(
    "en",
  );
});

const base: OrderRecord = {
  orderId: "56188-2561",
  quoteId: "e3cdeb26-0000-4000-8000-000000000000",
  hash: "675a81c7".padEnd(64, "0"),
  kind: "payout",
  corridor: "NG",
  chatId: 1,
  userId: 1,
  stage: "awaiting_payment",
  pay: { amount: 6_016, currency: "BTCSAT" },
  receive: { amount: 1_000_000, currency: "NGNKOBO" },
  fee: { amount: 59, currency: "BTCSAT" },
  recipientLabel: "GTBANK PLC ••6789 · ADA OBI",
  verificationCode: "🦊🍋",
  expiresAt: "2025-10-01T20:27:57.000Z",
  createdAt: "2025-10-01T20:22:57.000Z",
  updatedAt: "2025-10-01T20:22:57.000Z",
};
const buy: OrderRecord = {
  ...base,
  kind: "buy",
  pay: { amount: 844_540, currency: "NGNKOBO" },
  receive: { amount: 5_000, currency: "BTCSAT" },
  fee: { amount: 4_624, currency: "NGNKOBO" },
  recipientLabel: "tb1qw5…jzsx",
};

/** Only the tags we write ourselves may appear: everything else must have been escaped. */
const ALLOWED_TAGS = /<\/?(b|code)>/g;
const strayMarkup = (text: string) => /[<>]/.test(text.replace(ALLOWED_TAGS, ""));

describe("mapping events to stages", () => {
  const ngnSent = (status: string) => ({
    id: "tx-2",
    ref: "678ae2e20de0dee7aecd2bd40f8c9",
    hash: base.hash,
    type: "WITHDRAWAL",
    status,
    currency: "NGN",
    transactionMetadata: { orderId: base.orderId, bankAccountNumber: "0123456789" },
  });

  it("maps NGN payment.received / payment.sent", () => {
    const received = { ...ngnSent("SUCCESS"), id: "tx-1", type: "DEPOSIT" };
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.received", received), base)).toEqual({
      stage: "payment_received",
    });
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.sent", ngnSent("SUCCESS")), base)).toEqual({
      stage: "completed",
      payoutReference: "678ae2e20de0dee7aecd2bd40f8c9",
    });
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.sent", ngnSent("FAILED")), base)).toEqual({
      stage: "failed",
      failureReason: "payout_failed",
    });
    expect(
      transitionFromPaymentEvent(
        paymentEventFacts("payment.received", { ...received, status: "FAILED" }),
        base,
      ),
    ).toEqual({
      stage: "failed",
      failureReason: "payment_failed",
    });
  });

  it("reads the KES spec shape (no type) and never takes the quote hash for a payout reference", () => {
    const sent = {
      id: "kes-tx",
      amount: 150_000,
      currency: "KES",
      status: "SUCCESS",
      metadata: { identifierType: "paytophone", phoneNumber: "+254790000000", reference: base.hash },
    };
    const kes: OrderRecord = { ...base, corridor: "KE", receive: { amount: 150_000, currency: "KESCENT" } };
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.sent", sent), kes)).toEqual({
      stage: "completed",
      payoutReference: "kes-tx",
    });
    const receipt = { ...sent, metadata: { ...sent.metadata, mpesaReceiptNumber: "QJK1ABC2DE" } };
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.sent", receipt), kes)?.payoutReference).toBe(
      "QJK1ABC2DE",
    );
  });

  it("never moves an order with a transaction that is not one of its own", () => {
    // A refund paid to an invoice carrying this order's payment hash: a BTC Lightning withdrawal, FAILED.
    const refund = {
      id: "refund-tx",
      hash: base.hash,
      type: "WITHDRAWAL",
      status: "FAILED",
      currency: "BTC",
      amount: 3_378,
      btcUsdMetadata: { orderId: "99999-0001", lnInvoice: "lntbs…", onChainAddress: null },
    };
    const sent = paymentEventFacts("payment.sent", refund);
    expect(transactionFits(sent, base)).toBe(false);
    expect(transitionFromPaymentEvent(sent, base)).toBeUndefined();
    expect(transitionFromPaymentEvent(sent, buy)).toBeUndefined();
    // The right currency for the wrong amount, or the right amount in the wrong currency, is not the order's.
    const ngn = { ...refund, currency: "NGN", amount: base.receive.amount };
    expect(transactionFits(paymentEventFacts("payment.sent", { ...ngn, amount: 999 }), base)).toBe(false);
    expect(transactionFits(paymentEventFacts("payment.sent", { ...ngn, currency: "KES" }), base)).toBe(false);
    expect(transactionFits(paymentEventFacts("payment.sent", ngn), base)).toBe(true);
    // The reconciler's read-back is filtered the same way: a stranger's FAILED withdrawal fails nothing.
    const now = Date.parse(base.expiresAt) - 60_000;
    expect(transitionFromApiState({ order: base, apiOrder: undefined, transactions: [refund], now })).toBe(
      undefined,
    );
  });

  it("maps on-chain withdrawals to txid and confirmations", () => {
    const onchain = (status: string, extra: Record<string, unknown> = {}) => ({
      id: "btc-tx",
      type: "WITHDRAWAL",
      status,
      currency: "BTC",
      btcUsdMetadata: { onchainTxid: "ab".repeat(32), onChainAddress: "tb1q…", ...extra },
    });
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.sent", onchain("PENDING")), buy)).toEqual({
      stage: "payout_sent",
      txid: "ab".repeat(32),
      confirmations: 0,
    });
    expect(transitionFromPaymentEvent(paymentEventFacts("payment.sent", onchain("SUCCESS")), buy)).toEqual({
      stage: "completed",
      txid: "ab".repeat(32),
      confirmations: 3,
    });
  });

  it("reconciles API state: SUCCESS only when every transaction is", () => {
    const now = Date.parse(base.expiresAt) - 60_000;
    const deposit = { type: "DEPOSIT", status: "SUCCESS" };
    const withdrawal = (status: string) => ({ type: "WITHDRAWAL", status, ref: "r1" });
    const state = (apiOrder: { status: string } | undefined, transactions: unknown[], at = now) =>
      transitionFromApiState({ order: base, apiOrder, transactions, now: at, expiryGraceMs: 1_000 });
    expect(state({ status: "PENDING" }, [])).toBeUndefined();
    expect(state({ status: "PAID" }, [])).toEqual({ stage: "payment_received" });
    expect(state({ status: "PAID" }, [deposit])).toEqual({ stage: "payment_received" });
    expect(state({ status: "PAID" }, [deposit, withdrawal("PENDING")])?.stage).toBe("payout_sent");
    expect(state({ status: "PAID" }, [{ ...deposit, status: "PENDING" }, withdrawal("SUCCESS")])?.stage).toBe(
      "payout_sent",
    );
    expect(state({ status: "PAID" }, [deposit, withdrawal("SUCCESS")])).toEqual({
      stage: "completed",
      payoutReference: "r1",
    });
    expect(state({ status: "FAILED" }, [deposit, withdrawal("FAILED")])).toEqual({
      stage: "failed",
      failureReason: "payout_failed",
    });
    expect(state({ status: "EXPIRED" }, [])).toEqual({ stage: "expired" });
    // Unpaid and past expiry (plus grace): expired even if the API never says so; not before.
    expect(state({ status: "PENDING" }, [], Date.parse(base.expiresAt) + 500)).toBeUndefined();
    expect(state({ status: "PENDING" }, [], Date.parse(base.expiresAt) + 2_000)).toEqual({
      stage: "expired",
    });
    expect(state(undefined, [], Date.parse(base.expiresAt) + 2_000)).toEqual({ stage: "expired" });
  });
});

describe("the status card", () => {
  const variants = (order: OrderRecord): OrderRecord[] =>
    ORDER_STAGES.map((stage) => ({
      ...order,
      stage,
      ...(stage === "payout_sent" || stage === "completed"
        ? { txid: "cd".repeat(32), confirmations: 2 }
        : {}),
      ...(stage === "completed" ? { payoutReference: "678ae2e2", confirmations: 3 } : {}),
      ...(stage === "failed" ? { failureReason: "payout_failed" } : {}),
    }));

  it("renders every stage of payouts and buys from the status namespace, with no missing keys", () => {
    for (const order of [...variants(base), ...variants(buy)]) {
      const card = renderStatusCard(order, t, "en-NG");
      expect(card.text, `${order.kind}/${order.stage}`).not.toMatch(/status:|^…$|\{\{/m);
      expect(card.text).toContain(order.orderId);
      expect(strayMarkup(card.text)).toBe(false);
      const note = renderNotification(order, t, "en-NG");
      // Nothing to buzz about while it waits, nor when its owner dropped it.
      if (order.stage === "awaiting_payment" || order.stage === "cancelled") expect(note).toBeUndefined();
      else expect(note).toMatch(/\S/);
      renderQuoteExpired(order, t, "en-NG");
      const receipt = renderReceipt(order, t, "en-NG", "payout_bot");
      expect(receipt, `${order.kind}/${order.stage} receipt`).not.toMatch(/status:|^…$|\{\{/m);
      expect(strayMarkup(receipt)).toBe(false);
    }
    const missing = logged.map((line) => JSON.parse(line) as { msg: string; key?: string });
    expect(missing.filter((entry) => entry.msg.startsWith("i18n key missing"))).toEqual([]);
  });

  it("shows what matters at each stage", () => {
    const [waiting, , sent, completed, failed, expired] = variants(base);
    expect(renderStatusCard(waiting!, t, "en-NG").text).toMatch(/Pay before 21:27 WAT/);
    expect(renderStatusCard(sent!, t, "en-NG").text).toMatch(/Payout sent/);
    const done = renderStatusCard(completed!, t, "en-NG");
    expect(done.text).toMatch(/₦10,000\.00 was delivered[\s\S]*678ae2e2/);
    expect(done.keyboard?.inline_keyboard).toEqual([
      [{ text: "🧾 Receipt", callback_data: "order:receipt:56188-2561" }],
    ]);
    expect(parseOrderCallback("order:receipt:56188-2561")).toEqual({
      action: "receipt",
      orderId: "56188-2561",
    });
    const failure = renderStatusCard(failed!, t, "en-NG");
    expect(failure.text).toMatch(/The 6,016 sats you paid is held for you: tap “Get my sats back”/);
    expect(failure.text).toMatch(
      /Mention order <code>56188-2561<\/code> when you contact the operator of this bot/,
    );
    expect(failure.keyboard?.inline_keyboard).toEqual([
      [{ text: "💸 Get my sats back", callback_data: "order:refund:56188-2561" }],
    ]);
    expect(parseOrderCallback("order:refund:56188-2561")).toEqual({
      action: "refund",
      orderId: "56188-2561",
    });
    // A refund under way or done: its line instead of the button; a failed one offers the button again.
    const refunding = { ...failed!, refund: { state: "sent", amountSats: 6_016, updatedAt: base.updatedAt } };
    const underWay = renderStatusCard(refunding, t, "en-NG");
    expect(underWay.text).toMatch(/Refund of 6,016 sats: sent\./);
    expect(underWay.keyboard).toBeUndefined();
    const retry = renderStatusCard(
      { ...refunding, refund: { ...refunding.refund, state: "failed" } },
      t,
      "en-NG",
    );
    expect(retry.text).toMatch(/Refund of 6,016 sats: failed, you can try again/);
    expect(retry.keyboard?.inline_keyboard[0]?.[0]?.text).toBe("💸 Get my sats back");
    const lapsed = renderStatusCard(expired!, t, "en-NG");
    expect(lapsed.keyboard?.inline_keyboard[0]?.[0]).toMatchObject({
      callback_data: "order:requote:56188-2561",
    });

    const buySent = renderStatusCard(variants(buy)[2]!, t, "en-NG").text;
    expect(buySent).toMatch(/Bitcoin sent[\s\S]*Confirmations: 2\/3/);
    expect(buySent).toContain("cd".repeat(32));
    const lightningFail = renderStatusCard(
      { ...base, stage: "failed", failureReason: "payment_failed" },
      t,
      "en-NG",
    );
    expect(lightningFail.text).toMatch(/no sats were taken/);
    expect(lightningFail.keyboard).toBeDefined();
  });

  it("escapes whatever the recipient label holds", () => {
    fc.assert(
      fc.property(fc.string(), (label) => {
        const order = {
          ...base,
          recipientLabel: label,
          stage: "completed" as const,
          payoutReference: `<${label}>`,
        };
        const texts = [
          renderStatusCard(order, t, "en-NG").text,
          renderNotification(order, t, "en-NG") ?? "",
          renderQuoteExpired(order, t, "en-NG").text,
        ];
        return texts.every((text) => !strayMarkup(text) && !/&(?!amp;|lt;|gt;)/.test(text));
      }),
    );
  });

  it("uses callback data that fits Telegram's 64 bytes and parses back", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/), (orderId) => {
        return [requoteCallbackData(orderId), refundCallbackData(orderId)].every(
          (data) => Buffer.byteLength(data) <= 64 && parseOrderCallback(data)?.orderId === orderId,
        );
      }),
    );
    expect(() => requoteCallbackData("x".repeat(49))).toThrow(RangeError);
    expect(parseOrderCallback("order:requote:a:b")).toBeUndefined();
    expect(parseOrderCallback("order:other:1-2")).toBeUndefined();
    expect(parseOrderCallback("order:refund:1-2:x")).toBeUndefined();
    expect(parseOrderCallback("order:refund:1 2")).toBeUndefined();
    expect(parseOrderCallback("menu:main")).toBeUndefined();
  });
});

describe("the card's money lines reconcile", () => {
  it("a payout: what is paid = exchanged + fee, and the rate shown is the one the user gets", () => {
    const { text } = renderStatusCard(base, t, "en-NG");
    expect(text).toContain("You pay: 6,016 sats\n   = 5,957 sats exchanged + 59 sats fee\n");
    expect(text).toContain("Recipient gets: ₦10,000.00\n💱 Your rate: 1 BTC = ₦167,869,733.09");
  });

  it("a purchase: naira paid = naira exchanged + fee, the rate per BTC in naira", () => {
    const { text } = renderStatusCard(buy, t, "en-NG");
    expect(text).toContain("You pay: ₦8,445.40\n   = ₦8,399.16 exchanged + ₦46.24 fee\n");
    expect(text).toContain("You get: 5,000 sats\n💱 Your rate: 1 BTC = ₦167,983,200.00");
  });
});

describe("the receipt", () => {
  it("is a forwardable summary: what was delivered, paid, when, and the provider's reference", () => {
    const completed: OrderRecord = {
      ...base,
      stage: "completed",
      payoutReference: "000013251001202257678ae2e2",
      updatedAt: "2025-10-01T20:24:10.000Z",
    };
    expect(renderReceipt(completed, t, "en-NG", "payout_bot")).toBe(
      [
        "🧾 <b>Payment receipt</b>",
        "Order <code>56188-2561</code> · ✅ Completed",
        "1 Oct 2025, 21:24 WAT",
        "",
        "Recipient: GTBANK PLC ••6789 · ADA OBI",
        "Amount delivered: ₦10,000.00",
        "Paid: 6,016 sats (fee included: 59 sats)",
        // 5,957 sats exchanged for ₦10,000: the rate the user got, not the mid-market one.
        "💱 Your rate: 1 BTC = ₦167,869,733.09 (exchange margin included)",
        "NIP session ID: <code>000013251001202257678ae2e2</code>",
        "",
        "Sent with @payout_bot. The reference is what the recipient's bank or wallet shows for this payment.",
      ].join("\n"),
    );
    const kenyan = renderReceipt(
      { ...completed, corridor: "KE", receive: { amount: 50_000, currency: "KESCENT" } },
      t,
      "en-KE",
      "payout_bot",
    );
    expect(kenyan).toContain("M-Pesa receipt: <code>000013251001202257678ae2e2</code>");
    expect(kenyan).toMatch(/1 Oct 2025, 23:24 (EAT|GMT\+3)/);

    const bought = renderReceipt(
      { ...buy, stage: "completed", txid: "cd".repeat(32), confirmations: 3 },
      t,
      "en-NG",
      "payout_bot",
    );
    expect(bought).toContain("Bitcoin purchase receipt");
    expect(bought).toContain("Bitcoin received: 5,000 sats");
    expect(bought).toContain(`Transaction: <code>${"cd".repeat(32)}</code>`);
    expect(bought).not.toContain("Recipient:");
  });
});
