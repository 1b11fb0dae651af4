import { InlineKeyboard } from "grammy";
import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import { type Country, formatClock, formatMoney, isCurrencyCode } from "#src/money/index.js";
import type { OrderRecord, OrderStage } from "#src/store/order-record.js";
import { receiptCallbackData, requoteCallbackData } from "./callback-data.ts";
import { FAILURE_REASONS, REQUIRED_CONFIRMATIONS } from "./mapping.ts";
import { nairaVariant } from "./naira.ts";
import { breakdownLines } from "./quote-lines.ts";
import { offersRefund, refundButton, refundLine } from "./refund.ts";

/**
 * The one status message per order (Telegram HTML), edited through every stage, plus the short notification
 * sent as a new message on each stage change so the phone buzzes. All text comes from the "status" namespace;
 * every value from the API or the user is HTML-escaped here.
 */
export interface RenderedCard {
  text: string;
  keyboard?: InlineKeyboard;
}

export function formatOrderMoney(money: { amount: number; currency: string }, locale: string): string {
  if (isCurrencyCode(money.currency)) return escapeHtml(formatMoney(money.amount, money.currency, locale));
  return escapeHtml(`${money.amount} ${money.currency}`);
}

export function formatExpiryTime(order: Pick<OrderRecord, "expiresAt" | "corridor">, locale: string): string {
  const ms = Date.parse(order.expiresAt);
  return escapeHtml(Number.isNaN(ms) ? order.expiresAt : formatClock(ms, locale, order.corridor));
}

/**
 * When the order was cancelled ("07:18 EAT", stamped on the API's clock), on `clock`: the order's corridor's, or
 * the one the reader chose (/history).
 */
export function formatCancelTime(
  order: Pick<OrderRecord, "cancelledAt" | "updatedAt" | "corridor">,
  locale: string,
  clock: Country = order.corridor,
): string {
  const at = order.cancelledAt ?? order.updatedAt;
  const ms = Date.parse(at);
  return escapeHtml(Number.isNaN(ms) ? at : formatClock(ms, locale, clock));
}

/** Keys that have a `_buy` variant in status.json (buy orders pay naira and receive bitcoin). */
const BUY_VARIANTS = new Set([
  "status:detail.awaiting_payment",
  "status:detail.payment_received",
  "status:detail.payout_sent",
  "status:detail.completed",
  "status:detail.expired",
  "status:failure.payout_failed",
  "status:failure.payment_failed",
  "status:notify.payout_sent",
  "status:notify.completed",
]);

function variant(
  t: TFunction,
  key: string,
  order: Pick<OrderRecord, "kind" | "pay">,
  values: Record<string, unknown>,
) {
  return t(order.kind === "buy" && BUY_VARIANTS.has(key) ? `${key}_buy` : nairaVariant(key, order), values);
}

function newQuoteKeyboard(order: OrderRecord, t: TFunction): InlineKeyboard {
  return new InlineKeyboard().text(t("status:button.newQuote"), requoteCallbackData(order.orderId));
}

/** `receive` is the formatted amount received, which the caller also needs (formatted once: Intl is not free). */
function summaryLines(order: OrderRecord, t: TFunction, locale: string, receive: string): string[] {
  const { breakdown, rate } = breakdownLines(order, t, locale);
  return [
    t("status:field.recipient", { recipient: escapeHtml(order.recipientLabel) }),
    t("status:field.pay", { amount: formatOrderMoney(order.pay, locale) }),
    breakdown,
    t(`status:field.receive.${order.kind}`, { amount: receive }),
    ...(rate ? [rate] : []),
  ];
}

function onchainLines(order: OrderRecord, t: TFunction): string[] {
  const lines: string[] = [];
  if (order.txid) lines.push(t("status:field.txid", { txid: escapeHtml(order.txid) }));
  if (order.kind === "buy" && (order.txid || order.confirmations !== undefined)) {
    const confirmations = Math.min(order.confirmations ?? 0, REQUIRED_CONFIRMATIONS);
    lines.push(t("status:field.confirmations", { count: confirmations, required: REQUIRED_CONFIRMATIONS }));
  }
  return lines;
}

function failureText(order: OrderRecord, t: TFunction, locale: string): string {
  const reason = order.failureReason ?? FAILURE_REASONS.orderFailed;
  const known = Object.values(FAILURE_REASONS) as string[];
  const key = known.includes(reason) ? reason : FAILURE_REASONS.orderFailed;
  return variant(t, `status:failure.${key}${refundSuffix(order)}`, order, {
    amount: formatOrderMoney(order.pay, locale),
  });
}

/**
 * Held sats whose refund is under way or done are no longer "tap Get my sats back": the text says they went back
 * (paid) or points at the refund's own line (any other state but a retryable one, which offers the button again).
 */
function refundSuffix(order: OrderRecord): "" | "_refunded" | "_refund" {
  if (order.kind !== "payout" || order.failureReason !== FAILURE_REASONS.payoutFailed) return "";
  if (!order.refund || offersRefund(order)) return "";
  return order.refund.state === "paid" ? "_refunded" : "_refund";
}

/** The status card for the order's current stage. `locale` is the Intl locale of the owner's language. */
export function renderStatusCard(order: OrderRecord, t: TFunction, locale: string): RenderedCard {
  const orderId = escapeHtml(order.orderId);
  const receive = formatOrderMoney(order.receive, locale);
  const lines = [
    t(`status:title.${order.kind}`, { orderId }),
    ...summaryLines(order, t, locale, receive),
    "",
  ];
  const stageKey = order.stage === "payout_sent" && order.kind === "buy" ? "payout_sent_buy" : order.stage;
  const cancelled = order.stage === "cancelled" ? { time: formatCancelTime(order, locale) } : {};
  lines.push(t(nairaVariant(`status:stage.${stageKey}`, order), cancelled));
  let keyboard: InlineKeyboard | undefined;
  const recipient = escapeHtml(order.recipientLabel);

  switch (order.stage) {
    case "awaiting_payment":
      lines.push(
        variant(t, "status:detail.awaiting_payment", order, { time: formatExpiryTime(order, locale) }),
      );
      break;
    case "payment_received":
      lines.push(variant(t, "status:detail.payment_received", order, {}));
      break;
    case "payout_sent":
      lines.push(variant(t, "status:detail.payout_sent", order, {}), ...onchainLines(order, t));
      break;
    case "completed":
      lines.push(
        variant(t, "status:detail.completed", order, {
          amount: receive,
          recipient,
          required: REQUIRED_CONFIRMATIONS,
        }),
      );
      lines.push(...onchainLines(order, t));
      if (order.payoutReference) {
        lines.push(t("status:field.reference", { reference: escapeHtml(order.payoutReference) }));
      }
      keyboard = new InlineKeyboard().text(t("status:button.receipt"), receiptCallbackData(order.orderId));
      break;
    case "failed":
      lines.push(failureText(order, t, locale), t("status:detail.support", { orderId }));
      // A payment that never went through can simply be tried again; held sats can be refunded by the user.
      if (order.failureReason === FAILURE_REASONS.paymentFailed && order.kind === "payout") {
        keyboard = newQuoteKeyboard(order, t);
      } else if (offersRefund(order)) {
        keyboard = refundButton(order, t);
      }
      {
        const refund = refundLine(order, t, locale);
        if (refund) lines.push(refund);
      }
      break;
    case "expired":
      lines.push(variant(t, "status:detail.expired", order, { time: formatExpiryTime(order, locale) }));
      keyboard = newQuoteKeyboard(order, t);
      break;
    case "cancelled":
      lines.push(t("status:detail.cancelled"));
      keyboard = newQuoteKeyboard(order, t);
      break;
  }
  return keyboard ? { text: lines.join("\n"), keyboard } : { text: lines.join("\n") };
}

/** The short "buzz" message for reaching `stage` (defaults to the order's current stage). */
export function renderNotification(
  order: OrderRecord,
  t: TFunction,
  locale: string,
  stage: OrderStage = order.stage,
): string | undefined {
  const values = {
    orderId: escapeHtml(order.orderId),
    amount: formatOrderMoney(order.receive, locale),
    recipient: escapeHtml(order.recipientLabel),
  };
  switch (stage) {
    case "awaiting_payment":
      return undefined;
    case "payment_received":
    case "payout_sent":
    case "completed":
      return variant(t, `status:notify.${stage}`, order, values);
    case "failed":
    case "expired":
      return t(`status:notify.${stage}`, values);
    case "cancelled":
      // Its owner dropped it themselves: nothing to buzz about.
      return undefined;
  }
}

/** The quote card of a quote that expired before the user confirmed it. */
export function renderQuoteExpired(order: OrderRecord, t: TFunction, locale: string): RenderedCard {
  const lines = [
    t("status:quoteExpired.title", { time: formatExpiryTime(order, locale) }),
    ...summaryLines(order, t, locale, formatOrderMoney(order.receive, locale)),
    "",
    t("status:quoteExpired.body"),
  ];
  return { text: lines.join("\n"), keyboard: newQuoteKeyboard(order, t) };
}
