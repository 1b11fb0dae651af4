import { CURRENCIES, type CurrencyCode } from "./currencies.ts";

/**
 * Exact conversions between integer minor units and decimal strings in the major unit.
 * All string/bigint math: a float never touches an amount.
 */

/** 200050 NGNKOBO → "2000.50"; 21000 BTCSAT → "0.00021000"; -5 → "-0.05". Throws on a non-safe-integer. */
export function toMajorString(minor: number, currency: CurrencyCode): string {
  if (!Number.isSafeInteger(minor))
    throw new RangeError(`amount must be a safe integer of minor units, got ${minor}`);
  const digits = CURRENCIES[currency].minorDigits;
  const negative = minor < 0;
  const abs = String(Math.abs(minor));
  if (digits === 0) return negative ? `-${abs}` : abs;
  const padded = abs.padStart(digits + 1, "0");
  const major = `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
  return negative ? `-${major}` : major;
}

const MAJOR_DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parse a canonical decimal string in the major unit ("2000.50", "-1.5", "0.0005") into minor units.
 * Returns undefined for anything else: separators, symbols, more decimals than the currency has, or a result
 * outside the safe-integer range. For what users type, use parseAmount.
 */
export function fromMajorString(text: string, currency: CurrencyCode): number | undefined {
  const match = MAJOR_DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const [, sign, whole = "0", fraction = ""] = match;
  const minor = decimalToMinor(whole, fraction, CURRENCIES[currency].minorDigits);
  if (minor === undefined) return undefined;
  const signed = sign ? -minor : minor;
  return Object.is(signed, -0) ? 0 : signed;
}

/**
 * Digits of a whole part and a fraction part → minor units as bigint, or undefined when the fraction has more
 * digits than `minorDigits`. Shared with parseAmount.
 */
export function decimalToMinorBig(whole: string, fraction: string, minorDigits: number): bigint | undefined {
  if (fraction.length > minorDigits) return undefined;
  return BigInt(`${whole || "0"}${fraction.padEnd(minorDigits, "0")}`);
}

function decimalToMinor(whole: string, fraction: string, minorDigits: number): number | undefined {
  const big = decimalToMinorBig(whole, fraction, minorDigits);
  if (big === undefined || big > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(big);
}
