import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import {
  CURRENCIES,
  type CurrencyCode,
  formatAmountNumber,
  formatMoney,
  isCurrencyCode,
  resolveNumberLocale,
} from "#src/money/index.js";
import type { OrderRecord } from "#src/store/order-record.js";
import type { TransactionFacts } from "./facts.ts";
import { quoteBreakdown } from "./quote-math.ts";

/**
 * Naira-funded payouts (NGN→KES/ZAR/GHS, notes §6): the payer transfers naira to a virtual account and the
 * recipient gets local money. Such an order is a payout whose `pay` is in kobo; these pure rules say which of the
 * API's transactions are its own, how its money lines read and which status texts it uses.
 */

interface Money {
  amount: number;
  currency: string;
}

/** Whether the order is a payout paid in naira by bank transfer (rather than in sats over Lightning). */
export function isNairaFunded(order: { kind: string; pay?: Money }): boolean {
  return order.kind === "payout" && order.pay?.currency === "NGNKOBO";
}

/**
 * A naira-funded order's transactions: the NGN DEPOSIT of exactly the total it asked for, and the WITHDRAWAL of
 * what its recipient gets, in the target currency. A field the provider left out is not held against it.
 */
export function nairaTransactionFits(
  facts: TransactionFacts,
  order: { pay: Money; receive: Money },
): boolean {
  const side = facts.type === "DEPOSIT" ? order.pay : order.receive;
  const iso = CURRENCIES[side.currency as CurrencyCode]?.iso;
  if (facts.currency !== undefined && facts.currency !== iso) return false;
  return facts.amount === undefined || facts.amount === side.amount;
}

/** a / b as a decimal string with `digits` fraction digits (rounded half up), for a ≥ 0 and b > 0. */
function ratio(a: number, b: number, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const scaled = (2n * BigInt(a) * scale + BigInt(b)) / (2n * BigInt(b));
  const whole = scaled / scale;
  const fraction = (scaled % scale).toString().padStart(digits, "0");
  return `${whole}.${fraction}`;
}

/** One major unit of money worth `decimal` of `currency`: "KSh 0.0867", "₦11.54" (symbol placed as formatMoney does). */
function unitValue(decimal: string, currency: CurrencyCode, locale: string): string {
  const small = Number(decimal) < 1;
  const options: Intl.NumberFormatOptions = small
    ? { maximumSignificantDigits: 3 }
    : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  // ES2023 Intl formats numeric strings exactly; the cast only satisfies older lib typings.
  const number = new Intl.NumberFormat(resolveNumberLocale(locale), options).format(
    decimal as unknown as number,
  );
  return formatMoney(100, currency, locale).replace(formatAmountNumber(100, currency, locale), number);
}

/**
 * The money lines of a naira-funded card: `breakdown`, the naira exchanged and the fee (summing exactly to what is
 * paid), and `rate`, the rate the payer gets both ways ("₦1 = KSh 0.0867 · KSh 1 = ₦11.54"), derived from the naira
 * exchanged and what arrives, so it explains the card's own figures.
 */
export function nairaBreakdownLines(
  money: { pay: Money; fee: Money; receive: Money },
  t: TFunction,
  locale: string,
): { breakdown: string; rate?: string } {
  const b = quoteBreakdown(
    { pay: money.pay.amount, fee: money.fee.amount, receive: money.receive.amount },
    "pay_btc",
  );
  const naira = (amount: number) => escapeHtml(formatMoney(amount, "NGNKOBO", locale));
  const breakdown = t("quote:breakdown", { exchanged: naira(b.exchanged), fee: naira(b.fee) });
  const target = money.receive.currency;
  if (!isCurrencyCode(target) || b.exchanged <= 0 || b.receive <= 0) return { breakdown };
  const one = (currency: CurrencyCode) =>
    escapeHtml(formatMoney(100, currency, locale).replace(formatAmountNumber(100, currency, locale), "1"));
  const rate = t("naira:rate", {
    naira: one("NGNKOBO"),
    inTarget: escapeHtml(unitValue(ratio(b.receive, b.exchanged, 8), target, locale)),
    target: one(target),
    inNaira: escapeHtml(unitValue(ratio(b.exchanged, b.receive, 8), "NGNKOBO", locale)),
  });
  return { breakdown, rate };
}

/** Status texts that read differently when the payer transferred naira (their variants live in naira.json). */
const NAIRA_VARIANTS = new Set([
  "status:stage.awaiting_payment",
  "status:stage.payment_received",
  "status:detail.awaiting_payment",
  "status:detail.payment_received",
  "status:detail.expired",
  "status:failure.payout_failed",
  "status:failure.payout_failed_refund",
  "status:failure.payout_failed_refunded",
  "status:failure.payment_failed",
  "status:notify.payment_received",
]);

/** The key of a status text for this order: "status:detail.expired" → "naira:status.detail.expired" where one exists. */
export function nairaVariant(key: string, order: Pick<OrderRecord, "kind" | "pay">): string {
  return isNairaFunded(order) && NAIRA_VARIANTS.has(key) ? `naira:${key.replace(":", ".")}` : key;
}
