import { CURRENCIES } from "#src/money/index.js";
import type { OrderRecord, OrderTransition } from "#src/store/order-record.js";
import { payoutReferenceOf, type TransactionFacts, transactionFacts } from "./facts.ts";
import { isNairaFunded, nairaTransactionFits } from "./naira.ts";

/**
 * How payout-API facts move an order through its stages. Pure functions: the store's `transition()` applies
 * the result monotonically (a stage never moves back), so feeding it stale or reordered facts is harmless.
 */

/** On-chain withdrawals succeed after this many confirmations (spec 8). */
export const REQUIRED_CONFIRMATIONS = 3;

/** failureReason codes stored on failed orders; the status card explains each. */
export const FAILURE_REASONS = {
  /** The incoming payment failed: nothing reached the provider. */
  paymentFailed: "payment_failed",
  /** The payment arrived but the payout to the recipient failed: the provider holds the funds. */
  payoutFailed: "payout_failed",
  /** The API reports the order FAILED without saying which side. */
  orderFailed: "order_failed",
} as const;

type PaymentEventName = "payment.received" | "payment.sent";

/** The facts of a `payment.received` / `payment.sent` event; the KES shape names no type, the event does. */
export function paymentEventFacts(event: PaymentEventName, data: unknown): TransactionFacts {
  const facts = transactionFacts(data);
  return { ...facts, type: facts.type ?? (event === "payment.received" ? "DEPOSIT" : "WITHDRAWAL") };
}

/**
 * The transition one event's transaction implies for an order it fits (`transactionFits`), or undefined for none.
 */
export function transitionFromPaymentEvent(
  facts: TransactionFacts,
  order: OrderRef,
): OrderTransition | undefined {
  return transactionFits(facts, order) ? transitionFromTransaction(facts, order) : undefined;
}

/**
 * What the mapping needs to know about the order: its kind, what its recipient gets, and its quote hash (never a
 * payout reference).
 */
type OrderRef = Pick<OrderRecord, "kind" | "receive"> & { hash?: string; pay?: OrderRecord["pay"] };

/**
 * Whether a transaction can be one of the order's own. Both of an order's transactions are in the quote's target
 * currency for the target amount (notes §11: a BTC→NGN payout takes an NGN DEPOSIT and an NGN WITHDRAWAL of what
 * the recipient gets; a buy a BTC DEPOSIT and an on-chain BTC WITHDRAWAL of the sats bought). Anything else that
 * shares the order's id or payment hash — a Lightning withdrawal to an invoice someone chose, carrying the hash of an
 * order they never paid — is not the order's and never moves it. A field the provider left out is not held against
 * the transaction; a field it sent must fit.
 */
export function transactionFits(facts: TransactionFacts, order: OrderRef): boolean {
  if (facts.type !== "DEPOSIT" && facts.type !== "WITHDRAWAL") return false;
  // A naira-funded payout takes the NGN DEPOSIT of its total kobo, then the WITHDRAWAL of its target amount.
  if (order.pay && isNairaFunded(order))
    return nairaTransactionFits(facts, { pay: order.pay, receive: order.receive });
  const currency = CURRENCIES[order.receive.currency as keyof typeof CURRENCIES]?.iso;
  if (facts.currency !== undefined && facts.currency !== currency) return false;
  if (facts.amount !== undefined && facts.amount !== order.receive.amount) return false;
  // A buy's bitcoin leaves on-chain, to the address its owner gave; a Lightning withdrawal is somebody's refund.
  return !(order.kind === "buy" && facts.type === "WITHDRAWAL" && !facts.onchain && facts.currency === "BTC");
}

/** The transition one transaction implies on its own. */
function transitionFromTransaction(facts: TransactionFacts, order: OrderRef): OrderTransition | undefined {
  const status = facts.status;
  if (facts.type === "DEPOSIT") {
    if (status === "SUCCESS" || status === "PAID") return { stage: "payment_received" };
    if (status === "FAILED") return { stage: "failed", failureReason: FAILURE_REASONS.paymentFailed };
    return undefined;
  }
  if (facts.type !== "WITHDRAWAL") return undefined;
  const onchain = facts.onchain || order.kind === "buy";
  if (status === "PENDING") {
    return {
      stage: "payout_sent",
      ...(facts.txid ? { txid: facts.txid } : {}),
      ...(onchain && facts.txid
        ? { confirmations: Math.min(facts.confirmations ?? 0, REQUIRED_CONFIRMATIONS - 1) }
        : {}),
    };
  }
  if (status === "SUCCESS") {
    const reference = payoutReferenceOf(facts, order.hash);
    return {
      stage: "completed",
      ...(facts.txid ? { txid: facts.txid } : {}),
      ...(onchain ? { confirmations: Math.max(facts.confirmations ?? 0, REQUIRED_CONFIRMATIONS) } : {}),
      ...(reference && !onchain ? { payoutReference: reference } : {}),
    };
  }
  if (status === "FAILED") return { stage: "failed", failureReason: FAILURE_REASONS.payoutFailed };
  return undefined;
}

interface ApiOrderView {
  /** GET /order `status`: PENDING, PAID, EXPIRED, FAILED (open set). */
  status?: string;
}

interface ApiReconcileInput {
  order: Pick<OrderRecord, "kind" | "stage" | "expiresAt" | "receive"> & {
    hash?: string;
    pay?: OrderRecord["pay"];
  };
  /** Undefined when the API does not know the order (404). */
  apiOrder: ApiOrderView | undefined;
  /** Every transaction of the order (`GET /transaction?orderId=` may return several). */
  transactions: unknown[];
  now: number;
  /** How long past `expiresAt` an unpaid order is still given (clock skew, a payment in flight). */
  expiryGraceMs?: number;
}

/**
 * The furthest stage the API state proves. DEPOSIT and WITHDRAWAL share the order: the order is completed only
 * when a withdrawal exists and every transaction is SUCCESS; any FAILED transaction fails it.
 */
export function transitionFromApiState(input: ApiReconcileInput): OrderTransition | undefined {
  const facts = input.transactions.map(transactionFacts).filter((tx) => transactionFits(tx, input.order));
  const status = input.apiOrder?.status?.toUpperCase();

  const failed = facts.find((tx) => tx.status === "FAILED");
  if (failed) {
    const reason = failed.type === "DEPOSIT" ? FAILURE_REASONS.paymentFailed : FAILURE_REASONS.payoutFailed;
    return { stage: "failed", failureReason: reason };
  }
  const withdrawals = facts.filter((tx) => tx.type === "WITHDRAWAL");
  if (withdrawals.length > 0 && facts.every((tx) => tx.status === "SUCCESS")) {
    const success = withdrawals[withdrawals.length - 1]!;
    return transitionFromTransaction(success, input.order);
  }
  const pendingWithdrawal = withdrawals.find((tx) => tx.status === "PENDING") ?? withdrawals[0];
  if (pendingWithdrawal) {
    return transitionFromTransaction({ ...pendingWithdrawal, status: "PENDING" }, input.order);
  }
  if (facts.some((tx) => tx.type === "DEPOSIT" && tx.status === "SUCCESS") || status === "PAID") {
    return { stage: "payment_received" };
  }
  if (status === "FAILED") return { stage: "failed", failureReason: FAILURE_REASONS.orderFailed };
  if (status === "EXPIRED") return { stage: "expired" };
  const graceMs = input.expiryGraceMs ?? 30_000;
  if (input.order.stage === "awaiting_payment" && input.now > Date.parse(input.order.expiresAt) + graceMs) {
    // The API answered (order unknown or still unpaid) and the quote's time is over: the invoice can no longer
    // be paid, so the order is expired even if the API never flips it to EXPIRED.
    return { stage: "expired" };
  }
  return undefined;
}

/**
 * An on-chain withdrawal that is broadcast but short of its confirmations. No webhook carries confirmation counts,
 * so the reconciler polls these fast (every few seconds) until the withdrawal succeeds or fails.
 */
export function isPendingOnchain(order: Pick<OrderRecord, "kind" | "stage" | "confirmations">): boolean {
  return order.stage === "payout_sent" && (order.kind === "buy" || order.confirmations !== undefined);
}

/**
 * The confirmation counts the user has not seen between `previous` (what the order showed before a transition)
 * and the order now, as states to record before it: 0 → completed(3) gives payout_sent 1/3 and 2/3, so the card
 * shows every block in order even when one check saw several. Empty unless the order was already counting.
 */
export function confirmationSteps<T extends Pick<OrderRecord, "stage" | "confirmations">>(
  previous: number | undefined,
  order: T,
): T[] {
  if (previous === undefined || order.confirmations === undefined) return [];
  if (order.stage !== "payout_sent" && order.stage !== "completed") return [];
  const steps: T[] = [];
  const last = Math.min(order.confirmations, REQUIRED_CONFIRMATIONS);
  for (let count = previous + 1; count < last; count += 1) {
    steps.push({ ...order, stage: "payout_sent", confirmations: count });
  }
  return steps;
}

/** Whether applying `update` to `order` would change anything (skips no-op work before queueing). */
export function wouldChange(order: OrderRecord, update: OrderTransition): boolean {
  if (update.stage && update.stage !== order.stage) return true;
  if (update.confirmations !== undefined && update.confirmations > (order.confirmations ?? -1)) return true;
  return (["txid", "payoutReference"] as const).some((field) => !!update[field] && !order[field]);
}
