import { InlineKeyboard } from "grammy";
import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import { formatDateTime, formatMoney } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/order-record.js";
import type { RefundRecord } from "#src/store/refunds.js";
import { RETRYABLE_REFUND_STATES, type RefundCurrency, type RefundState } from "#src/store/refunds.js";
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

/**
 * Kobo a naira-funded payout brought in before it failed (its NGN deposit is exactly its total, so that is `pay`),
 * or undefined. An order whose naira never arrived holds nothing.
 */
export function refundableKobo(order: OrderRecord): number | undefined {
  if (order.kind !== "payout" || order.stage !== "failed") return undefined;
  if (order.failureReason !== FAILURE_REASONS.payoutFailed) return undefined;
  if (order.pay.currency !== "NGNKOBO" || order.pay.amount <= 0) return undefined;
  return order.pay.amount;
}

/** What a refund of the order gives back, in the currency it was paid in, or undefined. */
export function refundableAmount(
  order: OrderRecord,
): { amount: number; currency: RefundCurrency } | undefined {
  const satsHeld = refundableSats(order);
  if (satsHeld !== undefined) return { amount: satsHeld, currency: "BTCSAT" };
  const kobo = refundableKobo(order);
  return kobo === undefined ? undefined : { amount: kobo, currency: "NGNKOBO" };
}

/** Whether the order's card offers "Get my sats/naira back": refundable, and no refund under way or done. */
export function offersRefund(order: OrderRecord): boolean {
  if (refundableAmount(order) === undefined) return false;
  return !order.refund || RETRYABLE_REFUND_STATES.includes(order.refund.state as RefundState);
}

export function refundButton(order: OrderRecord, t: TFunction): InlineKeyboard {
  const label = order.pay.currency === "NGNKOBO" ? "refund:button.start_ngn" : "refund:button.start";
  return new InlineKeyboard().text(t(label), refundCallbackData(order.orderId));
}

const money = (amount: number, currency: RefundCurrency, locale: string) =>
  escapeHtml(formatMoney(amount, currency, locale));

/** One line for the order's status card, /status and history: where the refund stands. */
export function refundLine(order: OrderRecord, t: TFunction, locale: string): string | undefined {
  if (!order.refund) return undefined;
  const state = order.refund.state as RefundState;
  const currency = order.pay.currency === "NGNKOBO" ? "NGNKOBO" : "BTCSAT";
  return t(`refund:line.${state}`, { amount: money(order.refund.amountSats, currency, locale) });
}

/** "To: GTBank · ••••6789 · ADA OKAFOR" for a bank refund; the invoice or address line otherwise. */
function destinationLine(refund: RefundRecord, t: TFunction): string {
  const b = refund.beneficiary;
  if (refund.destinationKind !== "bank" || !b) {
    return t(`refund:card.to_${refund.destinationKind}`, { destination: escapeHtml(refund.destination) });
  }
  return t("refund:card.to_bank", {
    bank: escapeHtml(b.bankName.trim()),
    account: escapeHtml(maskAccount(b.bankAccountNumber)),
    name: escapeHtml(b.bankAccountName.trim()),
  });
}

/** "••••6789": enough for the owner to recognise their account. */
export function maskAccount(accountNumber: string): string {
  return `••••${accountNumber.slice(-4)}`;
}

/** States whose text speaks of sats, an invoice or a wallet: a bank refund has its own wording of them. */
const BANK_WORDED_STATES: readonly RefundState[] = ["sent", "paid", "failed", "expired"];

function stateKey(refund: RefundRecord): string {
  const bank = refund.destinationKind === "bank" && BANK_WORDED_STATES.includes(refund.state);
  return `refund:card.state.${refund.state}${bank ? "_bank" : ""}`;
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
    t("refund:card.amount", { amount: money(refund.amountSats, refund.currency, locale) }),
    destinationLine(refund, t),
    "",
    t(stateKey(refund)),
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
    t("refund:receipt.amount", { amount: money(refund.amountSats, refund.currency, locale) }),
    destinationLine(refund, t),
    t("refund:card.reference", { reference: escapeHtml(refund.transactionId ?? "—") }),
  ].join("\n");
}

/** "lntbs67540n1p5…9yzq" — enough to recognise an invoice, never the whole of it. */
export function maskInvoice(invoice: string): string {
  return invoice.length <= 24 ? invoice : `${invoice.slice(0, 14)}…${invoice.slice(-6)}`;
}
