/**
 * Tiny money helpers private to the sandbox (it stands alone: it imports nothing of the bot, src/money included).
 * Amounts are integer minor units; arithmetic that can overflow 2^53 is done in bigint.
 */

export const UNITS = ["BTCSAT", "NGNKOBO", "KESCENT", "ZARCENT", "GHSPESEWA"] as const;
export type Unit = (typeof UNITS)[number];

export const FIATS = ["NGN", "KES", "ZAR", "GHS"] as const;
export type Fiat = (typeof FIATS)[number];
export type Currency = Fiat | "BTC";

export const SPEEDS = ["slow", "medium", "fast"] as const;
export type Speed = (typeof SPEEDS)[number];

const CURRENCY_OF_UNIT: Record<Unit, Currency> = {
  BTCSAT: "BTC",
  NGNKOBO: "NGN",
  KESCENT: "KES",
  ZARCENT: "ZAR",
  GHSPESEWA: "GHS",
};

export function currencyOf(unit: Unit): Currency {
  return CURRENCY_OF_UNIT[unit];
}

function decimalsOf(currency: Currency | "USD"): number {
  return currency === "BTC" ? 8 : 2;
}

/** "1000000" kobo → "10000.00"; 6016 sats → "0.00006016". Integer-only. */
export function formatMajor(minor: number | bigint, currency: Currency | "USD"): string {
  const value = BigInt(minor);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const decimals = decimalsOf(currency);
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError("denominator must be positive");
  if (numerator >= 0n) return (numerator + denominator - 1n) / denominator;
  return numerator / denominator;
}

/** Back to a JS number, refusing anything a number cannot hold exactly. */
export function toSafe(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`amount ${value} is outside the safe integer range`);
  }
  return Number(value);
}
