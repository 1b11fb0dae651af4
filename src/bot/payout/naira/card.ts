import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { formatMoney, toMajorString } from "#src/money/index.js";
import { breakdownLines, formatExpiryTime, formatOrderMoney } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { payoutAction, payoutConfirmData, payoutSaveData } from "../callback-data.ts";
import { formatCountdown } from "../quote-orders.ts";
import { describeBeneficiary, type PayoutBeneficiary } from "../recipient.ts";

/**
 * The quote card of a naira-funded payout: the exact naira to transfer (to the kobo), how it splits into what is
 * exchanged and the fee, what the recipient gets and the rate both ways, who gets it, the virtual account to pay
 * into, the deadline (the quote's own, on the API's clock) and the anti-impersonation code. Every figure comes
 * from the stored order, so the card, the status card and the receipt show the same numbers.
 */
export interface NairaCardInput {
  order: OrderRecord;
  beneficiary: PayoutBeneficiary;
  /** Name shown when the beneficiary object has none (a till). */
  name: string;
  words: Parameters<typeof describeBeneficiary>[1];
  /** The API's clock now (ms), for the countdown. */
  nowMs: number;
  /** What the recipient would have got before rounding down to whole shillings, when it was rounded. */
  roundedFrom?: number;
  /** The daily allowance before this payout, where ops set one. */
  allowance?: { limit: number; remaining: number };
  confirmed?: boolean;
}

function moneyLines(input: NairaCardInput, t: TFunction, locale: string): string[] {
  const { order } = input;
  const { breakdown, rate } = breakdownLines(order, t, locale);
  const receive = order.receive.currency as Parameters<typeof formatMoney>[1];
  const lines = [
    t("naira:quote.transfer", { amount: formatOrderMoney(order.pay, locale) }),
    breakdown,
    t("payout:quote.receive", { amount: formatOrderMoney(order.receive, locale) }),
  ];
  if (input.roundedFrom !== undefined) {
    lines.push(
      t("naira:quote.whole_shillings", {
        exact: escapeHtml(formatMoney(input.roundedFrom, receive, locale)),
      }),
    );
  }
  if (rate) lines.push(rate);
  if (input.allowance) {
    const left = Math.max(0, input.allowance.remaining - order.receive.amount);
    lines.push(
      t("payout:quote.allowance", {
        left: escapeHtml(formatMoney(left, receive, locale)),
        limit: escapeHtml(formatMoney(input.allowance.limit, receive, locale)),
      }),
    );
  }
  return lines;
}

export function renderNairaCard(input: NairaCardInput, t: TFunction, locale: string): string {
  const { order } = input;
  const code = escapeHtml(order.verificationCode);
  const view = describeBeneficiary(input.beneficiary, input.words, input.name);
  const left = Date.parse(order.expiresAt) - input.nowMs;
  return [
    t("payout:quote.title", { code }),
    "",
    ...moneyLines(input, t, locale),
    "",
    t("payout:quote.to", { name: escapeHtml(view.name || input.name), where: escapeHtml(view.where) }),
    "",
    t("naira:quote.pay_into"),
    t("naira:quote.bank", { bank: escapeHtml(order.payIn?.bankName ?? "") }),
    t("naira:quote.account_number", { number: escapeHtml(order.payIn?.accountNumber ?? "") }),
    t("naira:quote.account_name", { name: escapeHtml(order.payIn?.accountName ?? "") }),
    "",
    t("naira:quote.exact"),
    t("payout:quote.expires", { countdown: formatCountdown(left), time: formatExpiryTime(order, locale) }),
    t("naira:quote.code_hint", { code }),
    "",
    input.confirmed ? t("naira:quote.confirmed") : t("naira:quote.confirm_hint"),
  ].join("\n");
}

/** The two things the payer types into their banking app: the account number and the exact amount. */
function copyRows(order: OrderRecord, t: TFunction): InlineKeyboardButton[][] {
  const rows: InlineKeyboardButton[][] = [];
  if (order.payIn?.accountNumber) {
    rows.push([InlineKeyboard.copyText(t("naira:quote.copy_account"), order.payIn.accountNumber)]);
  }
  rows.push([
    InlineKeyboard.copyText(t("naira:quote.copy_amount"), toMajorString(order.pay.amount, "NGNKOBO")),
  ]);
  return rows;
}

/**
 * Confirm, Refresh and Cancel above the copy buttons; once confirmed, the copy buttons stay, with "Save recipient"
 * for a recipient typed in (a Lightning payout offers it under its invoice; a naira one has no invoice).
 */
export function nairaCardKeyboard(order: OrderRecord, t: TFunction, confirmed = false): InlineKeyboard {
  const rows = copyRows(order, t);
  if (confirmed) {
    if (!order.recipientId)
      rows.push([
        InlineKeyboard.text(t("payout:button.save"), payoutSaveData.pack({ orderId: order.orderId })),
      ]);
    return InlineKeyboard.from(rows);
  }
  return InlineKeyboard.from([
    [InlineKeyboard.text(t("payout:button.confirm"), payoutConfirmData.pack({ orderId: order.orderId }))],
    [
      InlineKeyboard.text(t("payout:button.refresh"), payoutAction("refresh")),
      InlineKeyboard.text(t("common:cancel_button"), payoutAction("cancel")),
    ],
    ...rows,
  ]);
}
