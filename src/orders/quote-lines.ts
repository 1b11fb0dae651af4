import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney, isCurrencyCode } from "#src/money/index.js";
import { type QuoteBreakdown, quoteBreakdown } from "./quote-math.ts";

/** Money as an order or a quote card holds it: minor units of a currency code. */
interface Money {
  amount: number;
  currency: string;
}

interface PaidMoney {
  pay: Money;
  fee: Money;
  receive: Money;
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
 * The two lines every money card shows under "You pay": `= exchanged + fee` (summing exactly to what is paid)
 * and the rate the user gets (1 BTC in the fiat side's currency), namespace `quote`.
 */
export function breakdownLines(
  money: PaidMoney,
  t: TFunction,
  locale: string,
): { breakdown: string; rate?: string } {
  const b = breakdownOf(money);
  const fiat = money.receive.currency === "BTCSAT" ? money.pay.currency : money.receive.currency;
  const breakdown = t("quote:breakdown", {
    exchanged: format(b.exchanged, money.pay.currency, locale),
    fee: format(b.fee, money.pay.currency, locale),
  });
  if (b.ratePerBtc === undefined) return { breakdown };
  return { breakdown, rate: t("quote:rate", { rate: format(b.ratePerBtc, fiat, locale) }) };
}
