import { InlineKeyboard } from "grammy";
import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import { formatDateTime, formatMoney } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/order-record.js";
import type { RefundRecord } from "#src/store/refunds.js";
import { RETRYABLE_REFUND_STATES, type RefundState } from "#src/store/refunds.js";
import { refundCallbackData } from "./callback-data.ts";
import { FAILURE_REASONS } from "./mapping.ts";

/**
 * Refunds of held sats: which orders may be refunded and how much (pure rules), and the refund's own card and
 * receipt (Telegram HTML, namespace "refund", every value escaped).
 */

/**
 * Sats the user paid for a payout that failed after the payment arrived (the provider holds them), or undefined.
 * Buys are paid in naira and need ops; failures where the payment never arrived hold nothing.
 */
export function refundableSats(order: OrderRecord): number | undefined {
  if (order.kind !== "payout" || order.stage !== "failed") return undefined;
  if (order.failureReason !== FAILURE_REASONS.payoutFailed) return undefined;
  if (order.pay.currency !== "BTCSAT" || order.pay.amount <= 0) return undefined;
  return order.pay.amount;
}

/** Whether the order's card offers "Get my sats back": refundable, and no refund under way or done. */
export function offersRefund(order: OrderRecord): boolean {
  if (refundableSats(order) === undefined) return false;
  return !order.refund || RETRYABLE_REFUND_STATES.includes(order.refund.state as RefundState);
}

export function refundButton(order: OrderRecord, t: TFunction): InlineKeyboard {
  return new InlineKeyboard().text(t("refund:button.start"), refundCallbackData(order.orderId));
}

const sats = (amount: number, locale: string) => escapeHtml(formatMoney(amount, "BTCSAT", locale));

/** One line for the order's status card, /status and history: where the refund stands. */
export function refundLine(order: OrderRecord, t: TFunction, locale: string): string | undefined {
  if (!order.refund) return undefined;
  const state = order.refund.state as RefundState;
  return t(`refund:line.${state}`, { amount: sats(order.refund.amountSats, locale) });
}

/** The refund's card in the user's chat, edited at every state change. */
export function renderRefundCard(
  refund: RefundRecord,
  t: TFunction,
  locale: string,
  options: { corridor?: OrderRecord["corridor"]; supportUrl?: string } = {},
): { text: string; keyboard?: InlineKeyboard } {
  const lines = [
    t("refund:card.title", { orderId: escapeHtml(refund.orderId) }),
    t("refund:card.amount", { amount: sats(refund.amountSats, locale) }),
    t(`refund:card.to_${refund.destinationKind}`, { destination: escapeHtml(refund.destination) }),
    "",
    t(`refund:card.state.${refund.state}`),
  ];
  if (refund.transactionId) {
    lines.push(t("refund:card.reference", { reference: escapeHtml(refund.transactionId) }));
  }
  if (refund.state === "failed" && refund.error) {
    lines.push(t("refund:card.reason", { reason: escapeHtml(refund.error.slice(0, 200)) }));
  }
  if (refund.state === "paid") {
    lines.push(
      t("refund:card.paid_at", {
        time: escapeHtml(formatDateTime(refund.updatedAt, locale, options.corridor ?? "NG")),
      }),
    );
  }
  const text = lines.join("\n");
  // Only URL forms of SUPPORT_CONTACT get a button (config allows http(s) only; Telegram refuses other schemes).
  if (!options.supportUrl) return { text };
  return { text, keyboard: new InlineKeyboard().url(t("refund:button.support"), options.supportUrl) };
}

/** The receipt sent once when the refund is paid: a plain message to keep. */
export function renderRefundReceipt(
  refund: RefundRecord,
  t: TFunction,
  locale: string,
  order?: Pick<OrderRecord, "corridor">,
): string {
  return [
    t("refund:receipt.title"),
    t("refund:receipt.order", { orderId: escapeHtml(refund.orderId) }),
    escapeHtml(formatDateTime(refund.updatedAt, locale, order?.corridor ?? "NG")),
    "",
    t("refund:receipt.amount", { amount: sats(refund.amountSats, locale) }),
    t(`refund:card.to_${refund.destinationKind}`, { destination: escapeHtml(refund.destination) }),
    t("refund:card.reference", { reference: escapeHtml(refund.transactionId ?? "—") }),
  ].join("\n");
}

/** "lntbs67540n1p5…9yzq" — enough to recognise an invoice, never the whole of it. */
export function maskInvoice(invoice: string): string {
  return invoice.length <= 24 ? invoice : `${invoice.slice(0, 14)}…${invoice.slice(-6)}`;
}
