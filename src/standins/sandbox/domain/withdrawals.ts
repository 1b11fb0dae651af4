import type { z } from "zod";
import type { Core } from "#src/standins/sandbox/core.js";
import { badRequest } from "#src/standins/sandbox/http/errors.js";
import * as ids from "#src/standins/sandbox/ids.js";
import { payoutShouldFail } from "#src/standins/sandbox/schemas/beneficiary.js";
import type { withdrawBtcRequest, withdrawRequest } from "#src/standins/sandbox/schemas/requests.js";
import { credit, debit } from "./account.ts";
import { decodeInvoice, InvoiceError, isTestNetworkInvoice } from "./invoices.ts";
import { lookupName } from "./nameenquiry.ts";
import { FAILURE_REASON, payIn } from "./settlement.ts";
import type { QuoteRecord, TransactionRecord } from "./state.ts";
import { addTransaction } from "./transactions.ts";
import { webhookTransaction } from "./views.ts";

/**
 * Direct withdrawals from the wallets. The response carries the PENDING transaction; the final
 * status (SUCCESS, or FAILED by the 999 rule) is applied right after the response is written and
 * announced by payment.sent.
 */

interface Withdrawal {
  tx: TransactionRecord;
  settle: () => void;
}

export function withdrawNgn(core: Core, body: z.output<typeof withdrawRequest>): Withdrawal {
  const { beneficiary } = body;
  const bank = core.banks.ngnByCode(beneficiary.bankCode);
  if (!bank) throw badRequest("Invalid Bank Code");
  const enquiry = lookupName(core, beneficiary.bankAccountNumber, beneficiary.bankCode);
  if (beneficiary.bankAccountName !== enquiry.accountName) throw badRequest("Name Mismatch");
  if (beneficiary.bankName !== bank.bankName) {
    throw badRequest("Name Mismatch: bankName must be exactly the bank list name for bankCode");
  }
  const amount = Number(body.amount);
  const wallet = core.state.account.wallets.NGN;
  if (wallet.balance < body.amount) throw badRequest("Insufficient Balance");
  debit(core.state, "NGN", amount);
  const tx = addTransaction(core, {
    hash: ids.randomHex(24),
    amount,
    fees: 0,
    currency: "NGN",
    type: "WITHDRAWAL",
    status: "PENDING",
    autopayout: false,
    orderId: ids.orderId((id) => core.state.orders.has(id)),
    origin: "withdraw",
    beneficiary: { kind: "ngn-bank", ...beneficiary },
    customerInternalFee: 0,
    estimatedRoutingFee: 0,
  });
  return {
    tx,
    settle: () => {
      const fails = payoutShouldFail({ kind: "ngn-bank", ...beneficiary });
      tx.status = fails ? "FAILED" : "SUCCESS";
      tx.updatedAt = core.clock.now();
      if (fails) {
        tx.failureReason = FAILURE_REASON;
        credit(core.state, "NGN", amount);
      }
      core.webhooks.emit("payment.sent", webhookTransaction(tx, tx.hash));
    },
  };
}

export function withdrawBtc(core: Core, body: z.output<typeof withdrawBtcRequest>): Withdrawal {
  let decoded: ReturnType<typeof decodeInvoice>;
  try {
    decoded = decodeInvoice(body.invoice);
  } catch (error) {
    if (error instanceof InvoiceError) throw badRequest(error.message);
    throw error;
  }
  if (!isTestNetworkInvoice(decoded)) {
    throw badRequest("Invoice network mismatch: the sandbox pays signet/testnet invoices (lntbs…, lntb…)");
  }
  if (decoded.amountSats === null)
    throw badRequest("Amountless invoices are not supported: the invoice must carry an amount");
  if (decoded.expiresAt * 1000 <= core.clock.now()) throw badRequest("Invoice expired");
  const internal = sandboxQuoteFor(core, decoded.paymentHash);
  const amount = decoded.amountSats;
  if (core.state.account.wallets.BTC.balance < BigInt(amount)) throw badRequest("Insufficient Balance");
  debit(core.state, "BTC", amount);
  const tx = addTransaction(core, {
    hash: decoded.paymentHash,
    amount,
    fees: 0,
    currency: "BTC",
    type: "WITHDRAWAL",
    status: "PENDING",
    autopayout: false,
    orderId: ids.orderId((id) => core.state.orders.has(id)),
    origin: "withdraw-btc",
    beneficiary: { kind: "lninvoice", lnInvoice: body.invoice.trim() },
    paymentMethod: "LIGHTNING",
    customerInternalFee: 0,
    estimatedRoutingFee: 0,
    memo: body.memo,
  });
  return {
    tx,
    settle: () => {
      // Decided when the payment is made, so a second withdrawal to a quote's invoice finds it paid.
      const failure = lightningFailure(core, internal, decoded.description, amount);
      tx.status = failure ? "FAILED" : "SUCCESS";
      tx.updatedAt = core.clock.now();
      if (failure) {
        tx.failureReason = failure;
        credit(core.state, "BTC", amount);
      }
      core.webhooks.emit("payment.sent", webhookTransaction(tx, tx.hash));
      // Paying one of the sandbox's own quote invoices pays that quote, as Lightning would.
      if (!failure && internal) payIn(core, internal)();
    },
  };
}

/** What makes the sandbox's Lightning node fail a payment (docs/sandbox.md, "Lightning withdrawals"). */
export const NO_ROUTE_DESCRIPTION = "[no route]";

/**
 * Why a Lightning payment fails, or undefined when it goes through. An invoice carrying the payment hash of one of
 * the sandbox's own quotes reaches that quote's node: it settles only while the quote is open and only for the
 * quote's exact sats (a node never accepts a wrong amount for a hash it knows, nor a second payment). Any other
 * invoice is an outside wallet's, paid unless its description asks for no route.
 */
function lightningFailure(
  core: Core,
  internal: QuoteRecord | undefined,
  description: string,
  amount: number,
): string | undefined {
  if (internal) {
    if (internal.paidAt !== undefined) return "Payment failed: the invoice is already paid";
    if (internal.expiresAt <= core.clock.now()) return "Payment failed: the invoice has expired";
    if (internal.total !== amount) return "Payment failed: incorrect payment details";
    return undefined;
  }
  return description.includes(NO_ROUTE_DESCRIPTION)
    ? "Payment failed: no route to the destination"
    : undefined;
}

function sandboxQuoteFor(core: Core, paymentHash: string): QuoteRecord | undefined {
  for (const quote of core.state.quotes.values()) {
    if (quote.paymentMethod === "LIGHTNING" && quote.hash === paymentHash) return quote;
  }
  return undefined;
}
