import type { Api } from "grammy";
import { isPayoutApiError, transactionSchema } from "../../api/index.ts";
import { intlLocale, resolveLanguage } from "../../i18n/index.ts";
import { languageResolver } from "../../i18n/language-of.ts";
import { scrubText } from "../../log/mask.ts";
import {
  maskInvoice,
  refundableSats,
  renderRefundCard,
  renderRefundReceipt,
  renderStatusCard,
} from "../../orders/index.ts";
import type { ApprovalRecord, OrderRecord, RefundRecord, RefundState } from "../../store/index.ts";
import type { BotDeps } from "../context.ts";
import { raiseAlert } from "./alert-queue.ts";
import { invoiceForAddress, type LightningAddress, LnurlError, parseLightningAddress } from "./lnurl.ts";
import {
  type DecodedInvoice,
  decodeLightningInvoice,
  invoiceFitsNetwork,
  requestWithdrawal,
} from "./treasury.ts";
import { namesFor, renderApprovalCard } from "./treasury-card.ts";

/**
 * "Get my sats back": where the user wants the held sats (a BOLT11 invoice for the exact amount, or a Lightning
 * address resolved through LNURL-pay), then POST /withdraw/btc at most once — at once up to
 * REFUND_APPROVAL_THRESHOLD_SATS, above it only after an admin approves the request in the ops group (the treasury
 * four-eyes machinery, with the user as the requester). The refund record (store/refunds.ts) is the gate; the
 * order record carries a copy of its state for the cards.
 */
export type RefundDeps = Pick<
  BotDeps,
  "config" | "logger" | "redis" | "store" | "translator" | "accountLanguage"
> & {
  api: Pick<BotDeps["api"], "withdrawBtc" | "getTransactions">;
};

/** The invoice must stay payable long enough for the payment (and an approval) to happen. */
export const MIN_INVOICE_LIFETIME_MS = 2 * 60_000;
/** Longer input is neither an invoice nor an address; it is not even looked at. */
export const MAX_DESTINATION_LENGTH = 2_048;

export type DestinationProblem =
  | "not_recognised"
  | "wrong_network"
  | "amountless"
  | "wrong_amount"
  | "expired"
  | "address_failed"
  | "address_amount";

export type Destination =
  | {
      ok: true;
      destinationKind: "invoice" | "address";
      /** Shortened, for cards. */
      destination: string;
      invoice: string;
      paymentHash?: string;
      expiresAt: number;
    }
  | { ok: false; problem: DestinationProblem };

/** Checks a pasted or resolved invoice against the refund: network, exact amount (to the millisat), lifetime. */
export function checkRefundInvoice(
  decoded: DecodedInvoice,
  expected: { amountSats: number; network: string; now: number },
): DestinationProblem | undefined {
  if (!invoiceFitsNetwork(decoded, expected.network)) return "wrong_network";
  if (decoded.amountMsat === null) return "amountless";
  if (decoded.amountMsat !== BigInt(expected.amountSats) * 1000n) return "wrong_amount";
  if (decoded.expiresAt - expected.now < MIN_INVOICE_LIFETIME_MS) return "expired";
  return undefined;
}

/** What the user typed → a payable destination or the reason it is not one. Plain data (conversation logs). */
export async function resolveDestination(
  deps: Pick<RefundDeps, "config" | "logger">,
  text: string,
  expected: { amountSats: number; now: number },
  resolve: (address: LightningAddress, msat: bigint) => ReturnType<typeof invoiceForAddress> = (
    address,
    msat,
  ) => invoiceForAddress(address, msat, { allowHttpLoopback: deps.config.refunds.allowHttpLoopback }),
): Promise<Destination> {
  if (text.length > MAX_DESTINATION_LENGTH) return { ok: false, problem: "not_recognised" };
  const check = { ...expected, network: deps.config.bitcoinNetwork };
  const decoded = decodeLightningInvoice(text);
  if (decoded) {
    const problem = checkRefundInvoice(decoded, check);
    if (problem) return { ok: false, problem };
    return accepted("invoice", maskInvoice(decoded.invoice), decoded);
  }
  const address = parseLightningAddress(text, { allowHttpLoopback: deps.config.refunds.allowHttpLoopback });
  if (!address) return { ok: false, problem: "not_recognised" };
  try {
    const resolved = await resolve(address, BigInt(expected.amountSats) * 1000n);
    const problem = checkRefundInvoice(resolved.decoded, check);
    // The service chose the invoice: anything wrong with it is the address's fault, not the user's typing.
    if (problem) return { ok: false, problem: problem === "wrong_amount" ? "address_failed" : problem };
    return accepted("address", `${address.user}@${address.domain}`, resolved.decoded);
  } catch (error) {
    if (!(error instanceof LnurlError)) throw error;
    deps.logger.info({ failure: error.failure, domain: address.domain }, "lightning address not usable");
    return {
      ok: false,
      problem: error.failure === "amount_out_of_range" ? "address_amount" : "address_failed",
    };
  }
}

function accepted(kind: "invoice" | "address", destination: string, decoded: DecodedInvoice): Destination {
  return {
    ok: true,
    destinationKind: kind,
    destination,
    invoice: decoded.invoice,
    expiresAt: decoded.expiresAt,
    ...(decoded.paymentHash ? { paymentHash: decoded.paymentHash } : {}),
  };
}

/**
 * Open the refund (one per order; a failed or expired one may be opened again). "opened" means this caller owns
 * the next step; otherwise the state of the refund that exists is returned and nothing happens.
 */
export async function openRefund(
  deps: RefundDeps,
  input: { order: OrderRecord; destination: Extract<Destination, { ok: true }>; now: number },
): Promise<"opened" | "not_refundable" | RefundState> {
  const { order, destination } = input;
  const amountSats = refundableSats(order);
  if (amountSats === undefined) return "not_refundable";
  const needsApproval = amountSats > deps.config.refunds.approvalThresholdSats;
  const outcome = await deps.store.refunds.open({
    orderId: order.orderId,
    state: needsApproval ? "awaiting_approval" : "paying",
    userId: order.userId,
    chatId: order.chatId,
    amountSats,
    destinationKind: destination.destinationKind,
    destination: destination.destination,
    invoice: destination.invoice,
    invoiceExpiresAt: destination.expiresAt,
    now: input.now,
    ...(destination.paymentHash ? { paymentHash: destination.paymentHash } : {}),
  });
  if (outcome !== "opened") return outcome;
  // The payment hash is known before any money moves, so the withdrawal's webhook finds the refund even if it
  // arrives before the API's answer was recorded.
  if (destination.paymentHash)
    await deps.store.refunds.linkTransaction(destination.paymentHash, order.orderId);
  await deps.store.audit.record({
    actor: order.userId,
    action: "refund.request",
    details: {
      orderId: order.orderId,
      amount: amountSats,
      currency: "BTCSAT",
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

async function payRefund(deps: RefundDeps, refund: RefundRecord): Promise<void> {
  try {
    const transaction = await deps.api.withdrawBtc({
      invoice: refund.invoice,
      memo: `refund ${refund.orderId}`,
    });
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
    payload: {
      kind: "refund",
      orderId: refund.orderId,
      invoice: refund.invoice,
      amountSats: refund.amountSats,
      invoiceExpiresAt: refund.invoiceExpiresAt,
      destination: refund.destination,
      ...(refund.paymentHash ? { paymentHash: refund.paymentHash } : {}),
    },
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

/**
 * An approval request of kind "refund" changed (approved and executed, rejected, expired): mirror it on the refund
 * and update the user's cards. The approval's own Lua gate decided; this only records the outcome.
 */
export async function syncRefundFromApproval(
  deps: RefundDeps,
  telegram: Api,
  approval: ApprovalRecord,
): Promise<void> {
  if (approval.payload.kind !== "refund") return;
  const orderId = approval.payload.orderId;
  const refunds = deps.store.refunds;
  const from = ["awaiting_approval", "paying"] as const;
  switch (approval.state) {
    case "executing":
      await refunds.move(orderId, ["awaiting_approval"], "paying");
      break;
    case "done": {
      const transactionId = approval.result?.transactionId;
      if (transactionId) await refunds.linkTransaction(transactionId, orderId);
      await refunds.move(orderId, from, "sent", transactionId ? { transactionId } : {});
      if (approval.result?.status === "SUCCESS") await refunds.move(orderId, ["sent"], "paid");
      break;
    }
    case "failed":
      await refunds.move(
        orderId,
        from,
        "failed",
        approval.result?.error ? { error: approval.result.error } : {},
      );
      break;
    case "uncertain":
      await refunds.move(
        orderId,
        from,
        "uncertain",
        approval.result?.error ? { error: approval.result.error } : {},
      );
      break;
    case "rejected":
      await refunds.move(orderId, ["awaiting_approval"], "rejected");
      break;
    case "expired":
      await refunds.move(orderId, ["awaiting_approval"], "expired");
      break;
    case "pending":
      return;
  }
  await publishRefund(deps, telegram, orderId);
}

/**
 * payment.sent of a refund's withdrawal (found by transaction id or payment hash): paid or failed. Returns false
 * when the transaction is not a refund's (the caller hands the event on).
 */
export async function onRefundWithdrawalEvent(
  deps: RefundDeps,
  telegram: Api,
  event: { event: string; data: unknown },
): Promise<boolean> {
  if (event.event !== "payment.sent" && event.event !== "payment.received") return false;
  const parsed = transactionSchema.safeParse(event.data);
  if (!parsed.success) return false;
  const tx = parsed.data;
  const refund =
    (await deps.store.refunds.findByTransaction(tx.id)) ??
    (tx.hash ? await deps.store.refunds.findByTransaction(tx.hash) : undefined);
  if (!refund) return false;
  if (event.event !== "payment.sent" || tx.type !== "WITHDRAWAL") return true;
  await settleRefund(deps, telegram, refund, {
    id: tx.id,
    status: tx.status,
    failureReason: typeof tx.failureReason === "string" ? tx.failureReason : undefined,
  });
  return true;
}

/**
 * What the provider says about the refund's withdrawal decides it: SUCCESS → paid, FAILED → failed (nothing left
 * the wallet, so the user may try again). An uncertain refund is settled this way too — read back, never re-sent.
 */
async function settleRefund(
  deps: RefundDeps,
  telegram: Api,
  refund: RefundRecord,
  tx: { id: string; status: string; failureReason?: string | undefined },
): Promise<void> {
  const from = ["awaiting_approval", "paying", "sent", "uncertain"] as const;
  let moved: string | undefined;
  if (tx.status === "SUCCESS") {
    moved = await deps.store.refunds.move(refund.orderId, from, "paid", { transactionId: tx.id });
  } else if (tx.status === "FAILED") {
    moved = await deps.store.refunds.move(refund.orderId, from, "failed", {
      transactionId: tx.id,
      error: scrubText(tx.failureReason ?? "FAILED").slice(0, 200),
    });
  }
  if (moved !== "ok") return;
  await deps.store.audit.record({
    actor: "system",
    action: "refund.status",
    details: { orderId: refund.orderId, transactionId: tx.id, status: tx.status },
  });
  await publishRefund(deps, telegram, refund.orderId);
}

/**
 * Read an unsettled refund's withdrawal back from the API by the invoice's payment hash (GET /transaction?hash=):
 * the periodic ops check does this for refunds that are `sent` or `uncertain`, in case a webhook was lost. Nothing
 * found leaves the refund as it is, for ops: an uncertain payment is never sent again.
 */
export async function readBackRefund(deps: RefundDeps, telegram: Api, refund: RefundRecord): Promise<void> {
  if (!refund.paymentHash || (refund.state !== "sent" && refund.state !== "uncertain")) return;
  const transactions = await deps.api.getTransactions({ hash: refund.paymentHash });
  const withdrawal = transactions.find((tx) => tx.type === "WITHDRAWAL");
  if (!withdrawal?.status) return;
  const reason = (withdrawal as { failureReason?: unknown }).failureReason;
  await settleRefund(deps, telegram, refund, {
    id: withdrawal.id,
    status: withdrawal.status,
    failureReason: typeof reason === "string" ? reason : undefined,
  });
}

/**
 * Show the refund's current state everywhere: the order record's note, the refund card, the order's status card
 * (its refund line and button), an ops alert, and the receipt once it is paid. Safe to call more than once: the
 * alert and the receipt follow only the caller whose compare-and-set noted the new state on the order.
 */
export async function publishRefund(deps: RefundDeps, telegram: Api, orderId: string): Promise<void> {
  const refund = await deps.store.refunds.get(orderId);
  if (!refund) return;
  const noted = await deps.store.orders.noteRefund(orderId, {
    state: refund.state,
    amountSats: refund.amountSats,
    updatedAt: new Date(refund.updatedAt).toISOString(),
    ...(refund.transactionId ? { transactionId: refund.transactionId } : {}),
  });
  if (!noted) return;
  const { order } = noted;
  const language = await languageResolver(deps.store.users, deps.accountLanguage)(order.userId);
  const t = deps.translator.t(language);
  const locale = intlLocale(language);
  const edit = async (messageId: number | undefined, text: string, keyboard?: unknown) => {
    if (messageId === undefined) return;
    await telegram
      .editMessageText(order.chatId, messageId, text, {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(keyboard ? { reply_markup: keyboard as never } : {}),
      })
      .catch((error: unknown) => {
        if (!/not modified/i.test(String(error)))
          deps.logger.debug({ err: error, orderId }, "refund card not edited");
      });
  };
  const card = renderRefundCard(refund, t, locale, {
    corridor: order.corridor,
    supportUrl: deps.config.support.contact?.url,
  });
  await edit(refund.cardMessageId, card.text, card.keyboard);
  const status = renderStatusCard(order, t, locale);
  await edit(order.statusMessageId, status.text, status.keyboard);
  if (!noted.changed) return;
  if (refund.state !== "sent") {
    await raiseAlert(deps, {
      type: "refund",
      orderId,
      userId: order.userId,
      state: refund.state,
      amountSats: refund.amountSats,
      at: new Date().toISOString(),
    });
  }
  if (refund.state === "paid") {
    await telegram
      .sendMessage(order.chatId, renderRefundReceipt(refund, t, locale, order), {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(refund.cardMessageId
          ? { reply_parameters: { message_id: refund.cardMessageId, allow_sending_without_reply: true } }
          : {}),
      })
      .catch((error: unknown) => deps.logger.warn({ err: error, orderId }, "refund receipt not sent"));
  }
}
