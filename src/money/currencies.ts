/**
 * The currencies of the payout API. API codes name the minor unit (BTCSAT = satoshis, NGNKOBO = kobo, …);
 * amounts everywhere in the bot are integers in that minor unit.
 */

import {
  CORRIDOR_CURRENCY_CODES,
  CORRIDORS,
  COUNTRIES,
  type CorridorCurrencyCode,
  type CorridorIsoCode,
  type Country,
} from "#src/corridors/index.js";

export { COUNTRIES, type Country, isCountry } from "#src/corridors/index.js";

/** Bitcoin, then each corridor's payout currency (src/corridors). */
export const CURRENCY_CODES = ["BTCSAT", ...CORRIDOR_CURRENCY_CODES] as const;
export type FiatCurrencyCode = CorridorCurrencyCode;
export type CurrencyCode = "BTCSAT" | FiatCurrencyCode;

type IsoCode = "BTC" | CorridorIsoCode;

/** Each corridor's flag (country pickers, prices, history lines, recipient lists). */
export const COUNTRY_FLAGS: Readonly<Record<Country, string>> = Object.fromEntries(
  COUNTRIES.map((country) => [country, CORRIDORS[country].flag]),
) as Record<Country, string>;

interface CurrencyInfo {
  /** The API code, e.g. "NGNKOBO". */
  code: CurrencyCode;
  /** ISO 4217 code (BTC for bitcoin), e.g. "NGN": what `/wallet`, `/price` and transactions use. */
  iso: IsoCode;
  /** Decimal digits between the major unit and the API's minor unit (sats: 8 digits from BTC). */
  minorDigits: number;
  /** The symbol users know: ₦, KSh, R, GH₵, sats. */
  symbol: string;
  /** Whether a space separates a leading symbol from the number ("KSh 1,500.00" but "₦2,000.00"). */
  symbolSpaced: boolean;
  /** Country the fiat currency is paid out in; undefined for bitcoin. */
  country: Country | undefined;
}

export const CURRENCIES: Readonly<Record<CurrencyCode, CurrencyInfo>> = Object.fromEntries([
  [
    "BTCSAT",
    { code: "BTCSAT", iso: "BTC", minorDigits: 8, symbol: "sats", symbolSpaced: true, country: undefined },
  ],
  ...COUNTRIES.map((country) => [
    CORRIDORS[country].currency.code,
    { ...CORRIDORS[country].currency, country },
  ]),
]) as Record<CurrencyCode, CurrencyInfo>;

export function isCurrencyCode(value: unknown): value is CurrencyCode {
  return typeof value === "string" && (CURRENCY_CODES as readonly string[]).includes(value);
}

/** The payout currency of a country: currencyOfCountry("NG") → "NGNKOBO". */
export function currencyOfCountry(country: Country): FiatCurrencyCode {
  return CORRIDORS[country].currency.code;
}

/** Look a currency up by its ISO code, case-insensitively: byIso("kes") → KESCENT's info; unknown → undefined. */
export function byIso(iso: string): CurrencyInfo | undefined {
  const wanted = iso.trim().toUpperCase();
  return Object.values(CURRENCIES).find((info) => info.iso === wanted);
}

/** ISO code of an API code: isoOf("NGNKOBO") → "NGN". */
export function isoOf(code: CurrencyCode): IsoCode {
  return CURRENCIES[code].iso;
}

/** Amounts are plain JS integers in minor units; anything else is a bug upstream. */
export function isMinorAmount(value: unknown): value is number {
  return Number.isSafeInteger(value);
}
