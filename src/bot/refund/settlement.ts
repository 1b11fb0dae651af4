import type { Api } from "grammy";
import { transactionSchema } from "#src/api/index.js";
import { raiseAlert } from "#src/bot/rules/raise-alert.js";
import { intlLocale } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { scrubText } from "#src/log/mask.js";
import { renderRefundCard, renderRefundReceipt } from "#src/orders/index.js";
import { createOrderMessages } from "#src/orders/messages.js";
import type { ApprovalRecord, RefundRecord } from "#src/store/index.js";
import type { RefundDeps } from "./deps.ts";

/**
 * An approval request of kind "refund" changed (approved and executed, rejected, expired): mirror it on the refund
 * and update the user's cards. The approval's own Lua gate decided; this only records the outcome.
 */
export async function syncRefundFromApproval(
  deps: RefundDeps,
  telegram: Api,
  approval: ApprovalRecord,
): Promise<void> {
  if (approval.payload.kind !== "refund" && approval.payload.kind !== "refund_ngn") return;
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
 * payment.sent of a refund's withdrawal: paid or failed. Returns false when the transaction is not a refund's (the
 * caller hands the event on).
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
  const refund = await refundOfTransaction(deps, tx);
  if (!refund) return false;
  if (event.event !== "payment.sent" || tx.type !== "WITHDRAWAL") return true;
  await settleRefund(deps, telegram, refund, {
    id: tx.id,
    status: tx.status,
    failureReason: typeof tx.failureReason === "string" ? tx.failureReason : undefined,
  });
  return true;
}

type Transaction = {
  id: string;
  hash?: string | undefined;
  type?: string;
  currency?: string;
  amount?: unknown;
};

/**
 * The refund that made this withdrawal: by the transaction id its create answered, else — when that answer was lost
 * or has not been recorded yet — by its own invoice's payment hash, for that refund only and only if the withdrawal
 * is of the refund's exact sats and not another transaction than the one it made.
 */
async function refundOfTransaction(deps: RefundDeps, tx: Transaction): Promise<RefundRecord | undefined> {
  const linked = await deps.store.refunds.findByTransaction(tx.id);
  if (linked) return linked;
  if (!tx.hash) return undefined;
  const refund = await deps.store.refunds.findByHash(tx.hash);
  return refund && isRefundWithdrawal(refund, tx) ? refund : undefined;
}

function isRefundWithdrawal(refund: RefundRecord, tx: Transaction): boolean {
  if (refund.transactionId !== undefined && refund.transactionId !== tx.id) return false;
  if (tx.type !== undefined && tx.type.toUpperCase() !== "WITHDRAWAL") return false;
  if (tx.currency !== undefined && tx.currency.toUpperCase() !== "BTC") return false;
  return Number(tx.amount) === refund.amountSats;
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
 * Read an unsettled refund's withdrawal back from the API (in case a webhook was lost): the periodic ops check does
 * this for refunds that are `sent` or `uncertain`. By the transaction id its create answered; where that answer was
 * lost (uncertain), by the invoice's payment hash, taking only a withdrawal of the refund's exact sats. Nothing
 * found leaves the refund as it is, for ops: an uncertain payment is never sent again.
 */
export async function readBackRefund(deps: RefundDeps, telegram: Api, refund: RefundRecord): Promise<void> {
  if (refund.state !== "sent" && refund.state !== "uncertain") return;
  const query = refund.transactionId
    ? { id: refund.transactionId }
    : refund.paymentHash
      ? { hash: refund.paymentHash }
      : undefined;
  if (!query) return;
  const transactions = await deps.api.getTransactions(query);
  const withdrawal = transactions.find((tx) =>
    refund.transactionId ? tx.id === refund.transactionId : isRefundWithdrawal(refund, tx),
  );
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
  // The order's own card through its one owner, which edits it in place (never sends one).
  const messages = createOrderMessages({ telegram, store: deps.store, now: deps.now, logger: deps.logger });
  await messages.refreshStatus(order, { t, locale }).catch((error: unknown) => {
    deps.logger.debug({ err: error, orderId }, "status card not edited");
  });
  if (!noted.changed) return;
  if (refund.state !== "sent") {
    await raiseAlert(deps, {
      type: "refund",
      orderId,
      userId: order.userId,
      state: refund.state,
      amountSats: refund.amountSats,
      currency: refund.currency,
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
