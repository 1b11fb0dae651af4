import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney, isCurrencyCode } from "#src/money/index.js";
import { nairaBreakdownLines } from "./naira.ts";
import { purchaseBreakdown, type QuoteBreakdown, quoteBreakdown } from "./quote-math.ts";

/** Money as an order or a quote card holds it: minor units of a currency code. */
interface Money {
  amount: number;
  currency: string;
}

interface PaidMoney {
  pay: Money;
  fee: Money;
  receive: Money;
  /** A purchase's network fee (sats) and the API's rate when it was quoted, as its order keeps them. */
  networkFeeSats?: number;
  ratePerBtc?: number;
}

function format(amount: number, currency: string, locale: string): string {
  return escapeHtml(
    isCurrencyCode(currency) ? formatMoney(amount, currency, locale) : `${amount} ${currency}`,
  );
}

/** The breakdown of what is paid (bitcoin on one side: sats paid for local money, or naira paid for sats). */
function breakdownOf(money: PaidMoney): QuoteBreakdown {
  const side = money.receive.currency === "BTCSAT" ? "receive_btc" : "pay_btc";
  return quoteBreakdown(
    { pay: money.pay.amount, fee: money.fee.amount, receive: money.receive.amount },
    side,
  );
}

/**
 * A purchase with its network fee known: `= ₦exchanged for N sats + ₦margin`, the exchange rate, and the network
 * fee as the exact sats taken from those bought (src/orders/quote-math.ts purchaseBreakdown).
 */
function purchaseLines(
  money: PaidMoney,
  networkFee: number,
  t: TFunction,
  locale: string,
): { breakdown: string; rate?: string } {
  const fiat = money.pay.currency;
  const b = purchaseBreakdown(
    { pay: money.pay.amount, fee: money.fee.amount, receive: money.receive.amount },
    networkFee,
    money.ratePerBtc,
  );
  const bought = format(b.bought, "BTCSAT", locale);
  const breakdown = t("quote:breakdown_buy", {
    exchanged: format(b.exchanged, fiat, locale),
    bought,
    margin: format(b.margin, fiat, locale),
  });
  const lines: string[] = [];
  if (b.ratePerBtc !== undefined)
    lines.push(t("quote:exchange_rate", { rate: format(b.ratePerBtc, fiat, locale) }));
  if (b.networkFee > 0)
    lines.push(t("quote:network_fee", { network: format(b.networkFee, "BTCSAT", locale), bought }));
  return lines.length > 0 ? { breakdown, rate: lines.join("\n") } : { breakdown };
}

/**
 * The lines every money card shows around "You pay": `breakdown`, summing exactly to what is paid, and `rate`, what
 * turns that into what arrives: the rate the user gets (1 BTC in the fiat side's currency) and, for a purchase, the
 * exact network fee its sats pay (one line each). Namespace `quote`.
 */
export function breakdownLines(
  money: PaidMoney,
  t: TFunction,
  locale: string,
): { breakdown: string; rate?: string } {
  if (money.receive.currency === "BTCSAT" && money.networkFeeSats !== undefined)
    return purchaseLines(money, money.networkFeeSats, t, locale);
  if (money.pay.currency === "NGNKOBO" && money.receive.currency !== "BTCSAT")
    return nairaBreakdownLines(money, t, locale);
  const b = breakdownOf(money);
  const fiat = money.receive.currency === "BTCSAT" ? money.pay.currency : money.receive.currency;
  const breakdown = t("quote:breakdown", {
    exchanged: format(b.exchanged, money.pay.currency, locale),
    fee: format(b.fee, money.pay.currency, locale),
  });
  if (b.ratePerBtc === undefined) return { breakdown };
  return { breakdown, rate: t("quote:rate", { rate: format(b.ratePerBtc, fiat, locale) }) };
}
