import type { Core } from "#src/standins/sandbox/core.js";
import * as ids from "#src/standins/sandbox/ids.js";
import { payoutShouldFail } from "#src/standins/sandbox/schemas/beneficiary.js";
import { type Currency, currencyOf } from "#src/standins/sandbox/units.js";
import { credit, debit } from "./account.ts";
import { onLinkOrderPaid, settleLinkOrder } from "./paymentlinks.ts";
import type { QuoteRecord, TransactionRecord } from "./state.ts";
import { addTransaction } from "./transactions.ts";
import { webhookTransaction } from "./views.ts";

export const FAILURE_REASON =
  "Payout rejected by the beneficiary institution (sandbox rule: identifier ends in 999)";

/**
 * A quote was paid: record the DEPOSIT (target currency; naira for a naira-funded payout), emit payment.received,
 * and hand back the payout step, which the HTTP layer runs right after the response is written ("shortly after").
 */
export function payIn(core: Core, quote: QuoteRecord): () => void {
  const now = core.clock.now();
  const order = core.state.orders.get(quote.orderId);
  quote.paidAt = now;
  quote.updatedAt = now;
  if (order) {
    order.status = "PAID";
    order.updatedAt = now;
  }
  const currency = currencyOf(quote.targetCurrency);
  // A naira-funded payout (NGN→KES/ZAR/GHS) records the naira that landed: an NGN DEPOSIT of the quote's total
  // (notes §6), exchanged at once into the target wallet the payout draws on.
  const nairaFunded = currencyOf(quote.sourceCurrency) === "NGN" && currency !== "BTC";
  const deposit = addTransaction(core, {
    ...common(quote),
    currency: nairaFunded ? "NGN" : currency,
    type: "DEPOSIT",
    status: "SUCCESS",
    amount: nairaFunded ? quote.total : quote.amountInTarget,
    fees: nairaFunded ? quote.feesInSource : quote.feesInTarget,
  });
  if (nairaFunded) credit(core.state, currency, quote.amountInTarget);
  else credit(core.state, currency, deposit.amount);
  core.webhooks.emit("payment.received", webhookTransaction(deposit, quote.hash));
  if (quote.paymentLinkId) onLinkOrderPaid(core, quote);
  return () => {
    if (quote.autopayout && quote.beneficiary) payout(core, quote);
  };
}

function common(quote: QuoteRecord) {
  return {
    hash: quote.hash,
    autopayout: quote.autopayout,
    orderId: quote.orderId,
    quoteId: quote.id,
    origin: "quote" as const,
    beneficiary: quote.beneficiary,
    paymentMethod: quote.paymentMethod,
    customerReference: quote.customerReference,
    customerInternalFee: quote.customerInternalFee,
    estimatedRoutingFee: quote.estimatedRoutingFee,
  };
}

/** The outgoing leg: bank / mobile money (SUCCESS or the 999 FAILED rule), Lightning, or on-chain. */
function payout(core: Core, quote: QuoteRecord): TransactionRecord {
  const beneficiary = quote.beneficiary;
  if (!beneficiary) throw new Error("payout without beneficiary");
  const currency = currencyOf(quote.targetCurrency);
  if (beneficiary.kind === "onchain") {
    const tx = addTransaction(core, {
      ...common(quote),
      currency,
      type: "WITHDRAWAL",
      status: "PENDING",
      amount: quote.amountInTarget,
      fees: quote.estimatedRoutingFee,
      onchain: {
        txid: ids.randomHex(64),
        speed: quote.speed ?? "medium",
        confirmations: 0,
        broadcastAt: core.clock.now(),
      },
    });
    debit(core.state, currency, tx.amount);
    core.webhooks.emit("payment.sent", webhookTransaction(tx, quote.hash));
    core.chain.track(tx, () => confirmOnchain(core, tx, quote));
    return tx;
  }
  const fails = payoutShouldFail(beneficiary);
  const tx = addTransaction(core, {
    ...common(quote),
    currency,
    type: "WITHDRAWAL",
    status: fails ? "FAILED" : "SUCCESS",
    amount: quote.amountInTarget,
    fees: 0,
    failureReason: fails ? FAILURE_REASON : undefined,
    providerReference: fails ? undefined : providerReference(currency, core.clock.now()),
  });
  if (fails) {
    // The received funds stay with the provider: in the target wallet, or — for a naira-funded payout — as the naira
    // that arrived, back in the NGN wallet (which a refund by POST /withdraw draws on).
    if (currencyOf(quote.sourceCurrency) === "NGN" && currency !== "BTC") {
      debit(core.state, currency, quote.amountInTarget);
      credit(core.state, "NGN", quote.total);
    }
    const order = core.state.orders.get(quote.orderId);
    if (order) {
      order.status = "FAILED";
      order.updatedAt = core.clock.now();
    }
  } else {
    debit(core.state, currency, tx.amount);
  }
  core.webhooks.emit("payment.sent", webhookTransaction(tx, quote.hash));
  return tx;
}

/** The reference the recipient's bank or wallet shows, for the rails whose shape is known. */
function providerReference(currency: Currency, nowMs: number): string | undefined {
  if (currency === "NGN") return ids.nipSessionId(nowMs);
  if (currency === "KES") return ids.mpesaReceipt(nowMs);
  return undefined;
}

function confirmOnchain(core: Core, tx: TransactionRecord, quote: QuoteRecord): void {
  tx.status = "SUCCESS";
  tx.updatedAt = core.clock.now();
  core.webhooks.emit("payment.sent", webhookTransaction(tx, quote.hash));
  if (quote.paymentLinkId) settleLinkOrder(core, quote, tx);
}
