import type { Api } from "grammy";
import { isPayoutApiError } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { namesFor, renderApprovalCard } from "#src/bot/rules/approval-card.js";
import { requestWithdrawal } from "#src/bot/rules/treasury.js";
import { intlLocale, resolveLanguage } from "#src/i18n/index.js";
import { scrubText } from "#src/log/mask.js";
import { refundableAmount } from "#src/orders/index.js";
import type { ApprovalPayload, OrderRecord, RefundRecord, RefundState } from "#src/store/index.js";
import type { RefundDeps } from "./deps.ts";
import type { RefundDestination } from "./destination.ts";
import { publishRefund } from "./settlement.ts";

/**
 * "Get my sats back": where the user wants the held sats (a BOLT11 invoice for the exact amount, or a Lightning
 * address resolved through LNURL-pay), then POST /withdraw/btc at most once — at once up to
 * REFUND_APPROVAL_THRESHOLD_SATS (a naira-funded order's kobo: POST /withdraw to the user's named bank account, up to
 * NGN_REFUND_APPROVAL_THRESHOLD_KOBO), above it only after an admin approves the request in the ops group (the treasury
 * four-eyes machinery, with the user as the requester). The refund record (store/refunds.ts) is the gate; the
 * order record carries a copy of its state for the cards.
 */
/**
 * What a refund starts with: above the ops threshold (in sats for Lightning, in kobo for a bank account) it waits for
 * an admin's approval, else it pays at once.
 */
export function refundOpening(
  config: BotDeps["config"],
  order: OrderRecord,
  destination: RefundDestination,
  amount: number,
) {
  const bank = destination.destinationKind === "bank";
  const threshold = bank ? config.refunds.approvalThresholdKobo : config.refunds.approvalThresholdSats;
  return {
    orderId: order.orderId,
    state: amount > threshold ? ("awaiting_approval" as const) : ("paying" as const),
    userId: order.userId,
    chatId: order.chatId,
    amountSats: amount,
    currency: bank ? ("NGNKOBO" as const) : ("BTCSAT" as const),
    destinationKind: destination.destinationKind,
    destination: destination.destination,
    invoice: bank ? "" : destination.invoice,
    invoiceExpiresAt: bank ? 0 : destination.expiresAt,
    ...(bank ? { beneficiary: destination.beneficiary } : {}),
  };
}

/**
 * Open the refund (one per order; a failed or expired one may be opened again). "opened" means this caller owns
 * the next step; otherwise the state of the refund that exists is returned and nothing happens.
 */
export async function openRefund(
  deps: RefundDeps,
  input: { order: OrderRecord; destination: RefundDestination; now: number },
): Promise<"opened" | "not_refundable" | "hash_known" | RefundState> {
  const { order, destination } = input;
  const refundable = refundableAmount(order);
  if (!refundable) return "not_refundable";
  // Naira go back to a bank account, sats to Lightning: never one for the other.
  const bank = destination.destinationKind === "bank";
  if (bank !== (refundable.currency === "NGNKOBO")) return "not_refundable";
  if (!bank && !destination.paymentHash) return "hash_known";
  const opening = refundOpening(deps.config, order, destination, refundable.amount);
  const needsApproval = opening.state === "awaiting_approval";
  // The store refuses a payment hash that is an order's or another refund's: the withdrawal's events and read-back
  // carry that hash, and must settle this refund alone. A bank refund settles by its transaction id alone.
  const outcome = await deps.store.refunds.open({
    ...opening,
    now: input.now,
    ...(!bank && destination.paymentHash ? { paymentHash: destination.paymentHash } : {}),
  });
  if (outcome !== "opened") return outcome;
  await deps.store.audit.record({
    actor: order.userId,
    action: "refund.request",
    details: {
      orderId: order.orderId,
      amount: refundable.amount,
      currency: refundable.currency,
      kind: destination.destinationKind,
      approval: needsApproval ? "required" : "not_required",
    },
  });
  return "opened";
}

/**
 * The step after opening: pay at once, or post the approval request to the ops group. Called once, by the caller
 * that opened the refund. The cards follow (publishRefund).
 */
export async function proceedRefund(
  deps: RefundDeps,
  telegram: Api,
  orderId: string,
  requesterName: string,
): Promise<void> {
  const refund = await deps.store.refunds.get(orderId);
  if (!refund) return;
  if (refund.state === "paying") {
    await payRefund(deps, refund);
  } else if (refund.state === "awaiting_approval") {
    await requestApproval(deps, telegram, refund, requesterName);
  }
  await publishRefund(deps, telegram, orderId);
}

/** The one withdrawal a refund stands for: POST /withdraw to the bank account, or POST /withdraw/btc. */
function withdrawRefund(deps: RefundDeps, refund: RefundRecord) {
  if (refund.beneficiary) {
    return deps.api.withdrawNgn({ amount: refund.amountSats, beneficiary: refund.beneficiary });
  }
  return deps.api.withdrawBtc({ invoice: refund.invoice, memo: `refund ${refund.orderId}` });
}

async function payRefund(deps: RefundDeps, refund: RefundRecord): Promise<void> {
  try {
    const transaction = await withdrawRefund(deps, refund);
    await deps.store.refunds.linkTransaction(transaction.id, refund.orderId);
    await deps.store.refunds.move(refund.orderId, ["paying"], "sent", { transactionId: transaction.id });
    if (transaction.status === "SUCCESS") await deps.store.refunds.move(refund.orderId, ["sent"], "paid");
    if (transaction.status === "FAILED") await deps.store.refunds.move(refund.orderId, ["sent"], "failed");
    await deps.store.audit.record({
      actor: "system",
      action: "refund.sent",
      details: { orderId: refund.orderId, transactionId: transaction.id, status: transaction.status },
    });
  } catch (error) {
    // An uncertain outcome may have paid: it is never retried, ops read it back.
    const uncertain = isPayoutApiError(error) && error.outcomeUnknown;
    const reason = describeFailure(error);
    await deps.store.refunds.move(refund.orderId, ["paying"], uncertain ? "uncertain" : "failed", {
      error: reason,
    });
    await deps.store.audit.record({
      actor: "system",
      action: uncertain ? "refund.uncertain" : "refund.failed",
      details: { orderId: refund.orderId, reason },
    });
    deps.logger.error(
      { err: error, orderId: refund.orderId, uncertain },
      "refund withdrawal did not complete",
    );
  }
}

function describeFailure(error: unknown): string {
  if (isPayoutApiError(error)) {
    return scrubText(error.apiMessage ?? error.kind).slice(0, 200);
  }
  return "unexpected error";
}

async function requestApproval(
  deps: RefundDeps,
  telegram: Api,
  refund: RefundRecord,
  requesterName: string,
): Promise<void> {
  const chatId = deps.config.admin.chatId;
  if (chatId === undefined) {
    // Nobody can approve it: say so on the card instead of leaving the user waiting forever. Nothing was sent.
    deps.logger.error({ orderId: refund.orderId }, "refund needs approval but no admin group is configured");
    await deps.store.refunds.move(refund.orderId, ["awaiting_approval"], "failed", {
      error: "approval needed, but no ops group is configured (ADMIN_CHAT_ID)",
    });
    return;
  }
  const record = await requestWithdrawal(deps, {
    payload: approvalPayload(refund),
    requestedBy: refund.userId,
    requesterName,
    chatId,
    now: Date.now(),
  });
  await deps.store.refunds.move(refund.orderId, ["awaiting_approval"], "awaiting_approval", {
    approvalId: record.id,
  });
  const language = resolveLanguage({ account: deps.accountLanguage.value });
  const card = renderApprovalCard(
    record,
    { t: deps.translator.t(language), locale: intlLocale(language) },
    await namesFor(deps.store.users, [record.requestedBy]),
  );
  const posted = await telegram.sendMessage(chatId, card.text, {
    parse_mode: "HTML",
    ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
  });
  await deps.store.approvals.setMessage(record.id, posted.message_id);
}

function approvalPayload(refund: RefundRecord): ApprovalPayload {
  if (refund.beneficiary) {
    return {
      kind: "refund_ngn",
      orderId: refund.orderId,
      amount: refund.amountSats,
      beneficiary: refund.beneficiary,
    };
  }
  return {
    kind: "refund",
    orderId: refund.orderId,
    invoice: refund.invoice,
    amountSats: refund.amountSats,
    invoiceExpiresAt: refund.invoiceExpiresAt,
    destination: refund.destination,
    ...(refund.paymentHash ? { paymentHash: refund.paymentHash } : {}),
  };
}
