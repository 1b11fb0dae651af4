import type { TFunction } from "#src/i18n/index.js";
import { maskDigitRuns } from "#src/log/mask.js";
import { type Country, isCurrencyCode, isoOf, toMajorString, zoneName } from "#src/money/index.js";
import { isNairaFunded, purchaseBreakdown, quoteBreakdown } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { clockDateTime } from "./period.ts";

/**
 * One order as a statement row: plain values a spreadsheet reads (no HTML, no currency symbols, no digit grouping).
 * Amounts are exact decimals of the major unit written from the stored minor units (toMajorString), each beside its
 * ISO currency code, so a column sums to the stored integers.
 */
export const STATEMENT_COLUMNS = [
  "date",
  "time",
  "zone",
  "kind",
  "country",
  "recipient",
  "paid",
  "paid_currency",
  "received",
  "received_currency",
  "fee",
  "fee_currency",
  "rate",
  "status",
  "order_id",
  "reference",
] as const;

/** The statement's header: the column names in the reader's language. */
export function statementHeader(t: TFunction): string[] {
  return STATEMENT_COLUMNS.map((column) => t(`history:export.column.${column}`));
}

type Money = OrderRecord["pay"];

/** "2000.50" and "NGN" from 200050 NGNKOBO; a currency this bot does not know is written as stored. */
function moneyCells(money: Money): [string, string] {
  if (!isCurrencyCode(money.currency)) return [String(money.amount), money.currency];
  return [toMajorString(money.amount, money.currency), isoOf(money.currency)];
}

/**
 * The rate the order's cards show (src/orders/quote-lines.ts): 1 BTC in the fiat side's major unit, what the user
 * actually got (a purchase with its network fee known: the exchange rate its breakdown uses). Empty when nothing
 * was exchanged for bitcoin.
 */
function effectiveRate(order: OrderRecord): string {
  // A payout paid in naira exchanged no bitcoin on the user's side: its paid and received columns say the rate.
  if (isNairaFunded(order)) return "";
  const buying = order.receive.currency === "BTCSAT";
  const amounts = { pay: order.pay.amount, fee: order.fee.amount, receive: order.receive.amount };
  const rate =
    buying && order.networkFeeSats !== undefined
      ? purchaseBreakdown(amounts, order.networkFeeSats, order.ratePerBtc).ratePerBtc
      : quoteBreakdown(amounts, buying ? "receive_btc" : "pay_btc").ratePerBtc;
  const fiat = buying ? order.pay.currency : order.receive.currency;
  return rate !== undefined && isCurrencyCode(fiat) ? toMajorString(rate, fiat) : "";
}

/** What the row stands for: a purchase, a payout whose sats came back, a payout paying a money request, a payout. */
function kindOf(order: OrderRecord): "buy" | "refund" | "request" | "payout" {
  if (order.kind === "buy") return "buy";
  if (order.refund?.state === "paid") return "refund";
  return order.requestId ? "request" : "payout";
}

/**
 * Text from outside the bot (recipient names, the API's ids) never starts a cell with a formula sign: a leading
 * quote keeps "=HYPERLINK(…)" in a requester's name from running in the payer's spreadsheet (CSV injection).
 */
function plainText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * Labels are stored masked; long digit runs are masked again, as /history shows them (an older record may have
 * kept a full account or phone number).
 */
function recipientCell(label: string): string {
  return plainText(maskDigitRuns(label));
}

/** One order's row, in STATEMENT_COLUMNS order; times on the reader's clock. */
export function statementRow(order: OrderRecord, view: { t: TFunction; clock: Country }): string[] {
  const created = Date.parse(order.createdAt);
  const { date, time } = Number.isFinite(created)
    ? clockDateTime(created, view.clock)
    : { date: "", time: "" };
  return [
    date,
    time,
    zoneName(view.clock),
    view.t(`history:export.kind.${kindOf(order)}`),
    order.corridor,
    recipientCell(order.recipientLabel),
    ...moneyCells(order.pay),
    ...moneyCells(order.receive),
    ...moneyCells(order.fee),
    effectiveRate(order),
    view.t(`history:export.status.${order.stage}`),
    plainText(order.orderId),
    plainText(order.payoutReference ?? order.txid ?? ""),
  ];
}
