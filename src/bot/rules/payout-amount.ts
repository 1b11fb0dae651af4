import type { Price } from "#src/api/index.js";
import { CORRIDORS, COUNTRIES } from "#src/corridors/index.js";
import {
  type Country,
  type CurrencyCode,
  type FiatCurrencyCode,
  type ParseFailureReason,
  parseAmount,
} from "#src/money/index.js";

/** What a payout amount may be: the corridors' minimums and ceilings, and reading what people type. Pure. */

/** Amounts above these are taken for a typo ("absurdly large"), not quoted (src/corridors). */
const MAX_PAYOUT_MINOR: Readonly<Record<FiatCurrencyCode, number>> = Object.fromEntries(
  COUNTRIES.map((country) => [CORRIDORS[country].currency.code, CORRIDORS[country].maximumMinor]),
) as Record<FiatCurrencyCode, number>;
/** 0.2 BTC. */
const MAX_PAY_SATS = 20_000_000;

/**
 * The smallest payout of a country in its minor units: fixed (NGN, spec 8) or US dollars (2 USD for the others) at
 * the price's `unitPricePerUsd` (a rate: turned into micro-units once, then integer math, rounded up like the API).
 */
export function minimumPayout(country: Country, price: Price | undefined): number | undefined {
  const minimum = CORRIDORS[country].minimum;
  if ("fixedMinor" in minimum) return minimum.fixedMinor;
  const rate = price?.unitPricePerUsd?.amount;
  if (rate === undefined || !Number.isFinite(rate) || rate <= 0) return undefined;
  const micro = BigInt(Math.round(rate * 1_000_000));
  const minor = (BigInt(minimum.usdCents) * micro + 999_999n) / 1_000_000n;
  return minor <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(minor) : undefined;
}

export type AmountCheck =
  | { ok: true; minor: number; currency: CurrencyCode }
  | {
      ok: false;
      reason: ParseFailureReason | "looks_like_phone" | "below_minimum";
      detected?: CurrencyCode;
      foreign?: string;
    };

/** "0712345678", "+254 712…", "2348012345678": a phone or account number typed where an amount was asked. */
export function looksLikePhoneOrAccount(text: string): boolean {
  const compact = text.trim().replace(/[\s\-().]/g, "");
  return (
    /^\+\d{7,}$/.test(compact) || /^0\d{8,}$/.test(compact) || /^(?:234|254|233|27)\d{9,}$/.test(compact)
  );
}

/**
 * What the user typed at the amount step → minor units of the currency they meant. `mode` is the toggle: the
 * target currency (what the recipient gets) or BTCSAT (what you pay). "21000 sats" works in fiat mode and
 * "₦5,000" in sats mode. The fiat minimum is checked here; a sats amount is checked by the API.
 */
export function checkAmount(
  text: string,
  options: { mode: CurrencyCode; target: FiatCurrencyCode; minimum?: number; locale?: string },
): AmountCheck {
  if (looksLikePhoneOrAccount(text)) return { ok: false, reason: "looks_like_phone" };
  const { mode, target } = options;
  let result = parseAmount(text, {
    currency: mode,
    allowBtcUnits: mode !== "BTCSAT",
    max: mode === "BTCSAT" ? MAX_PAY_SATS : MAX_PAYOUT_MINOR[target],
    maxSats: MAX_PAY_SATS,
    locale: options.locale,
  });
  if (!result.ok && result.reason === "wrong_currency" && mode === "BTCSAT" && result.detected === target) {
    result = parseAmount(text, { currency: target, max: MAX_PAYOUT_MINOR[target], locale: options.locale });
  }
  if (!result.ok) {
    return {
      ok: false,
      reason: result.reason,
      ...(result.detected ? { detected: result.detected } : {}),
      ...(result.foreign ? { foreign: result.foreign } : {}),
    };
  }
  if (result.currency === target && options.minimum !== undefined && result.minor < options.minimum) {
    return { ok: false, reason: "below_minimum" };
  }
  return { ok: true, minor: result.minor, currency: result.currency };
}
