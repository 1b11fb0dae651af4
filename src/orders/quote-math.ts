/**
 * The arithmetic every money card shows (quote card, invoice, status card, receipt; payouts and purchases), so
 * that what is shown always adds up to what is paid. Pure, integer only.
 *
 * The rule: what the user pays (`pay`, source minor units, fees included) is shown as two lines that sum to it
 * exactly — the part exchanged and the fee — and the rate shown is the rate the user actually gets, derived from
 * the exchanged part and what arrives (`receive`), never the API's mid-market `exchangeRate` (the spread between
 * the two would otherwise be unexplained on the card).
 */

export const SATS_PER_BTC = 100_000_000n;

/** A quote's amounts in minor units, as the API's Quote fields arrive (after the schema's coercion). */
interface QuoteAmountFields {
  amountInSourceCurrency: number;
  amountInTargetCurrency: number;
  totalAmountInSourceCurrency?: number;
  transactionFeesInSourceCurrency?: number;
  transactionFeesInTargetCurrency?: number;
  customerInternalFee?: number;
}

/** What is paid (fees included) and the fee, in source minor units; what arrives, in target minor units. */
interface QuoteAmounts {
  pay: number;
  fee: number;
  receive: number;
}

/**
 * The amounts of a quote. `pay` is the total the payer must send (`totalAmountInSourceCurrency`, which the
 * service keeps equal to `amountInSourceCurrency`, fees included). The fee is the source-currency fee plus any
 * `customerInternalFee`; when the API gives the fee only in the target currency it is converted at the quote's
 * all-in rate (pay buys receive + fee), rounded half up. The fee never exceeds what is paid.
 */
export function quoteAmounts(quote: QuoteAmountFields): QuoteAmounts {
  const pay = Math.max(0, quote.totalAmountInSourceCurrency ?? quote.amountInSourceCurrency);
  const receive = Math.max(0, quote.amountInTargetCurrency);
  let fee: number;
  if (quote.transactionFeesInSourceCurrency !== undefined) {
    fee = quote.transactionFeesInSourceCurrency + (quote.customerInternalFee ?? 0);
  } else {
    const feeTarget = Math.max(0, quote.transactionFeesInTargetCurrency ?? 0);
    fee =
      (feeTarget > 0 ? Number(divRound(BigInt(feeTarget) * BigInt(pay), BigInt(receive + feeTarget))) : 0) +
      (quote.customerInternalFee ?? 0);
  }
  return { pay, fee: Math.min(Math.max(0, fee), pay), receive };
}

/** Which side of the quote is bitcoin: a payout pays sats for local money, a purchase pays naira for sats. */
export type QuoteSide = "pay_btc" | "receive_btc";

export interface QuoteBreakdown {
  /** What the user pays, fees included: exactly `exchanged + fee`. */
  pay: number;
  /** The part of `pay` that is exchanged (source minor units). */
  exchanged: number;
  /** The fee (source minor units). */
  fee: number;
  /** What arrives (target minor units). */
  receive: number;
  /**
   * The rate the user gets: 1 BTC in the fiat side's minor units, rounded half up (absent when nothing is
   * exchanged or nothing arrives). It reproduces the amounts: see `fiatAtRate`.
   */
  ratePerBtc?: number;
}

/**
 * The breakdown of a quote's amounts into the lines a card shows. `exchanged = pay − fee`, so the lines sum to
 * `pay` by construction; the rate is `receive / exchanged` (payout) or `exchanged / receive` (purchase) per BTC.
 */
export function quoteBreakdown(amounts: QuoteAmounts, side: QuoteSide): QuoteBreakdown {
  const fee = Math.min(Math.max(0, amounts.fee), amounts.pay);
  const exchanged = amounts.pay - fee;
  const btc = side === "pay_btc" ? exchanged : amounts.receive;
  const fiat = side === "pay_btc" ? amounts.receive : exchanged;
  const base = { pay: amounts.pay, exchanged, fee, receive: amounts.receive };
  if (btc <= 0 || fiat <= 0) return base;
  const rate = divRound(BigInt(fiat) * SATS_PER_BTC, BigInt(btc));
  return rate <= BigInt(Number.MAX_SAFE_INTEGER) ? { ...base, ratePerBtc: Number(rate) } : base;
}

/** What a purchase's card shows: naira paid → sats bought at the exchange rate → network fee → sats that arrive. */
export interface PurchaseBreakdown {
  /** Naira paid, fees included (kobo): exactly `exchanged + margin`. */
  pay: number;
  /** The kobo that buy `bought` at `ratePerBtc`: `fiatAtRate(bought, ratePerBtc)`. */
  exchanged: number;
  /** Everything the exchange keeps besides: its fee and any spread (kobo). */
  margin: number;
  /** Sats bought: exactly `receive + networkFee`. */
  bought: number;
  /** The on-chain network fee (sats), paid from what is bought. */
  networkFee: number;
  /** Sats that arrive. */
  receive: number;
  /** The exchange rate: kobo per BTC (absent when nothing is bought). */
  ratePerBtc?: number;
}

/**
 * The breakdown of a purchase with its network fee known. The rate is the API's exchange rate (`apiRatePerBtc`, its
 * price of 1 BTC when quoted), and the margin is what is paid beyond the sats bought at that rate, so the spread is
 * shown as margin, never hidden in the rate, and the network fee as sats, never folded into either. Without that
 * rate, or when it would leave a margin below the API's own fee (the price moved since), the rate is the quote's
 * own: what is paid less the API's fee, per sat bought, the fee being the margin.
 */
export function purchaseBreakdown(
  amounts: QuoteAmounts,
  networkFee: number,
  apiRatePerBtc?: number,
): PurchaseBreakdown {
  const fee = Math.min(Math.max(0, amounts.fee), amounts.pay);
  const bought = amounts.receive + Math.max(0, networkFee);
  const base = { pay: amounts.pay, bought, networkFee: bought - amounts.receive, receive: amounts.receive };
  if (apiRatePerBtc !== undefined && apiRatePerBtc > 0 && bought > 0) {
    const exchanged = fiatAtRate(bought, apiRatePerBtc);
    if (amounts.pay - exchanged >= fee) {
      return { ...base, exchanged, margin: amounts.pay - exchanged, ratePerBtc: apiRatePerBtc };
    }
  }
  const own = quoteBreakdown({ pay: amounts.pay, fee, receive: bought }, "receive_btc");
  return {
    ...base,
    exchanged: own.exchanged,
    margin: own.fee,
    ...(own.ratePerBtc !== undefined ? { ratePerBtc: own.ratePerBtc } : {}),
  };
}

/**
 * How closely the shown rate reproduces the amounts: the fiat side recomputed from the sats at the shown rate,
 * `sats × rate / 10^8`, is within `sats / (2 × 10^8)` minor units of the quote's fiat amount (the rate is rounded to
 * the nearest minor unit per BTC). Below 1 BTC that is under half a minor unit, so rounding the recomputed figure
 * gives back the quote's amount exactly.
 */
export function fiatAtRate(sats: number, ratePerBtc: number): number {
  return Number(divRound(BigInt(sats) * BigInt(ratePerBtc), SATS_PER_BTC));
}

/** a / b rounded half up, for a ≥ 0 and b > 0. */
function divRound(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b);
}
