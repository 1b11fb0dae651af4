import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import type { TFunction } from "#src/i18n/index.js";
import { escapeHtml } from "#src/i18n/index.js";
import { toMajorString } from "#src/money/index.js";
import { breakdownLines, formatExpiryTime, formatOrderMoney } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { buyData } from "./callback-data.ts";

/**
 * The buy quote card: the exact naira amount to transfer, the virtual account (number copyable), what arrives
 * where, the exchange rate, margin and network fee, speed, expiry and the anti-impersonation code. Pure: every value
 * comes from the stored order.
 */
interface BuyQuoteView {
  order: OrderRecord;
  /** The API's clock (what `expiresAt` is on), for "about N min" left. */
  nowMs: number;
}

export function buyQuoteText(view: BuyQuoteView, t: TFunction, locale: string, confirmed = false): string {
  const { order } = view;
  const code = escapeHtml(order.verificationCode);
  const amount = formatOrderMoney(order.pay, locale);
  const address =
    typeof order.beneficiary?.onChainAddress === "string" ? order.beneficiary.onChainAddress : "";
  const money = breakdownLines(order, t, locale);
  const minutes = Math.max(1, Math.round((Date.parse(order.expiresAt) - view.nowMs) / 60_000));
  const lines = [
    t("buy:quote.title", { code }),
    "",
    t("buy:quote.transfer", { amount }),
    money.breakdown,
    t("buy:quote.receive", { amount: formatOrderMoney(order.receive, locale) }),
    ...(money.rate ? [money.rate] : []),
    t("buy:quote.address", { address: escapeHtml(address) }),
    ...(order.speed ? [t("buy:quote.speed", { speed: t(`buy:speed.${order.speed}`) })] : []),
    "",
    t("buy:quote.pay_into"),
    t("buy:quote.bank", { bank: escapeHtml(order.payIn?.bankName ?? "") }),
    t("buy:quote.account_number", { number: escapeHtml(order.payIn?.accountNumber ?? "") }),
    t("buy:quote.account_name", { name: escapeHtml(order.payIn?.accountName ?? "") }),
    "",
    t("buy:quote.exact"),
    t("buy:quote.expires", { time: formatExpiryTime(order, locale), minutes }),
    t("buy:quote.code_hint", { code }),
    "",
    confirmed ? t("buy:quote.confirmed") : t("buy:quote.confirm_hint"),
  ];
  return lines.join("\n");
}

/** Copy buttons stay after confirming: the account number and the exact amount are what the user types next. */
function copyRows(order: OrderRecord, t: TFunction): InlineKeyboardButton[][] {
  const rows: InlineKeyboardButton[][] = [];
  if (order.payIn?.accountNumber)
    rows.push([InlineKeyboard.copyText(t("buy:quote.copy_account"), order.payIn.accountNumber)]);
  if (order.pay.currency === "NGNKOBO") {
    rows.push([
      InlineKeyboard.copyText(t("buy:quote.copy_amount"), toMajorString(order.pay.amount, "NGNKOBO")),
    ]);
  }
  return rows;
}

export function buyQuoteKeyboard(order: OrderRecord, t: TFunction, confirmed = false): InlineKeyboard {
  const rows = copyRows(order, t);
  if (!confirmed) {
    rows.unshift([
      InlineKeyboard.text(
        t("buy:quote.confirm_button"),
        buyData.pack({ action: "confirm", value: order.orderId }),
      ),
      cancelButton(t),
    ]);
  }
  return InlineKeyboard.from(rows);
}
