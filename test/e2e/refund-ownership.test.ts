import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentLinkEvent } from "#src/events/index.js";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttons, confirmQuote, nigerianRecipient, orderOf, quoteFor } from "./payout-support.ts";

/**
 * Money moves only for its owner. A refund is paid to an invoice the user chooses, so its payment hash is the
 * user's to choose too: the replay below takes a failed (refundable) order A and an unpaid quote B, asks for A's
 * refund to an invoice signed by the user's own node key carrying B's payment hash, then delivers the signed FAILED
 * withdrawal event such a payment would bring, and finally asks for a refund of B. B must never become refundable
 * and no second refund may be paid. Withdrawals are counted at the sandbox.
 */
describe("a refund settles only what it paid", () => {
  let stack: Stack;
  /** Events the bot handed on as not any order's (refunds, treasury, merchants' links). */
  const handed: PaymentLinkEvent[] = [];

  beforeAll(async () => {
    stack = await startStack({
      env: { REFUND_APPROVAL_THRESHOLD_SATS: "1000000" },
      hooks: { onPaymentLinkEvent: async (event) => void handed.push(event) },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const withdrawals = () => stack.sandbox.state.transactions.filter((tx) => tx.origin === "withdraw-btc");

  /** An invoice from the user's own "node": any key, any payment hash they like. */
  const ownInvoice = (amountSats: number, paymentHash: Buffer) =>
    encodeInvoice(
      {
        amountSats,
        paymentHash,
        paymentSecret: randomBytes(32),
        description: "my refund",
        timestamp: Math.floor(stack.sandbox.now() / 1000),
        expirySeconds: 3600,
      },
      randomBytes(32),
    );

  async function failedOrder(user: UserDriver) {
    await nigerianRecipient(user, { account: "0123456999" });
    const quote = await quoteFor(user, "3000");
    const placed = await orderOf(stack, quote);
    const { invoice, status } = await confirmQuote(user, quote);
    await (await user.press(invoice, /Simulate/)).answer();
    const card = await user.nextEdit(status, { match: /Failed/ });
    return { order: (await stack.app.store.orders.get(placed.orderId)) as OrderRecord, card };
  }

  async function unpaidOrder(user: UserDriver) {
    await nigerianRecipient(user);
    const quote = await quoteFor(user, "10000");
    const placed = await orderOf(stack, quote);
    const { status } = await confirmQuote(user, quote);
    return { order: placed, status };
  }

  it("replays the theft step by step: B never becomes refundable and nothing else is paid", async () => {
    const user = stack.tg.user({ id: 38_001, first_name: "Mallam", language_code: "en" });
    const a = await failedOrder(user);
    const b = await unpaidOrder(user);
    const heldSats = a.order.pay.amount;
    expect(buttons(a.card)).toContain("💸 Get my sats back");

    // Refund A to an invoice carrying B's payment hash: refused, nothing reaches the provider.
    await (await user.press(a.card, /Get my sats back/)).answer();
    await user.nextMessage({ match: /Get your sats back/ });
    await user.send(ownInvoice(heldSats, Buffer.from(b.order.hash, "hex")));
    const refused = await user.nextMessage({ match: /used for another payment/ });
    expect(refused.text).toContain(`exactly ${heldSats.toLocaleString("en")} sats`);
    expect(withdrawals()).toHaveLength(0);
    expect(await stack.app.store.refunds.get(a.order.orderId)).toBeUndefined();

    // The payment such a refund would make, made at the provider: it cannot be routed (it is not B's amount), and
    // the provider's signed FAILED withdrawal event carries B's payment hash to the bot's webhook.
    const evil = ownInvoice(heldSats, Buffer.from(b.order.hash, "hex"));
    const made = await stack.app.api.withdrawBtc({ invoice: evil, memo: `refund ${a.order.orderId}` });
    await expect
      .poll(() => handed.find((event) => (event.data as { id?: string }).id === made.id)?.data)
      .toMatchObject({ hash: b.order.hash, status: "FAILED", type: "WITHDRAWAL" });
    await stack.app.events.recheckOrder(b.order.orderId);
    const stored = await stack.app.store.orders.get(b.order.orderId);
    expect(stored?.stage).toBe("awaiting_payment");
    expect(stored?.failureReason).toBeUndefined();

    // A refund of B is refused: B was never paid.
    await user.send(`/status ${b.order.orderId}`);
    const status = await user.nextMessage({ match: /Payout/ });
    expect(buttons(status)).not.toContain("💸 Get my sats back");
    expect(withdrawals().filter((tx) => tx.status !== "FAILED")).toHaveLength(0);
    expect(stack.sandbox.state.quotes.get(b.order.quoteId)?.paidAt).toBeUndefined();

    // A's own refund to an honest invoice still goes through, exactly once.
    await (await user.press(a.card, /Get my sats back/)).answer();
    await user.nextMessage({ match: /Get your sats back/ });
    await user.send(ownInvoice(heldSats, randomBytes(32)));
    const card = await user.nextMessage({ match: /Refund ·/ });
    await user.nextEdit(card, { match: /Refunded\./ });
    // The order's card no longer offers what was refunded: it says where the sats went, above the refund's line.
    const settled = await user.nextEdit(a.card, { match: /✅ paid/ });
    expect(settled.text).not.toContain("held for you");
    expect(settled.text).toContain(`The ${heldSats.toLocaleString("en")} sats you paid has been sent back`);
    expect(buttons(settled)).toEqual([]);
    const refunds = withdrawals().filter((tx) => tx.status === "SUCCESS");
    expect(refunds).toHaveLength(1);
    expect(refunds[0]?.amount).toBe(heldSats);
  });

  it("a refund dropped with /cancel says what was dropped, and the card still offers the sats", async () => {
    const user = stack.tg.user({ id: 38_002, first_name: "Ngozi", language_code: "en" });
    const a = await failedOrder(user);
    await (await user.press(a.card, /Get my sats back/)).answer();
    await user.nextMessage({ match: /Get your sats back/ });
    await user.send("/cancel");
    const cancelled = await user.nextMessage({ match: /Cancelled/ });
    expect(cancelled.text).toContain("your refund request");
    await user.send(`/status ${a.order.orderId}`);
    const status = await user.nextMessage({ match: /Payout/ });
    expect(status.text).toContain("held for you: tap “Get my sats back”");
    expect(buttons(status)).toContain("💸 Get my sats back");
  });
});
