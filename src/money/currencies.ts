/**
 * The currencies of the payout API. API codes name the minor unit (BTCSAT = satoshis, NGNKOBO = kobo, …);
 * amounts everywhere in the bot are integers in that minor unit.
 */

export const CURRENCY_CODES = ["BTCSAT", "NGNKOBO", "KESCENT", "ZARCENT", "GHSPESEWA"] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];
export type FiatCurrencyCode = Exclude<CurrencyCode, "BTCSAT">;

const ISO_CODES = ["BTC", "NGN", "KES", "ZAR", "GHS"] as const;
type IsoCode = (typeof ISO_CODES)[number];

export const COUNTRIES = ["NG", "KE", "ZA", "GH"] as const;
export type Country = (typeof COUNTRIES)[number];

/** Each corridor's flag (country pickers, prices, history lines, recipient lists). */
export const COUNTRY_FLAGS: Readonly<Record<Country, string>> = { NG: "🇳🇬", KE: "🇰🇪", ZA: "🇿🇦", GH: "🇬🇭" };

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

export const CURRENCIES: Readonly<Record<CurrencyCode, CurrencyInfo>> = {
  BTCSAT: {
    code: "BTCSAT",
    iso: "BTC",
    minorDigits: 8,
    symbol: "sats",
    symbolSpaced: true,
    country: undefined,
  },
  NGNKOBO: { code: "NGNKOBO", iso: "NGN", minorDigits: 2, symbol: "₦", symbolSpaced: false, country: "NG" },
  KESCENT: { code: "KESCENT", iso: "KES", minorDigits: 2, symbol: "KSh", symbolSpaced: true, country: "KE" },
  ZARCENT: { code: "ZARCENT", iso: "ZAR", minorDigits: 2, symbol: "R", symbolSpaced: true, country: "ZA" },
  GHSPESEWA: {
    code: "GHSPESEWA",
    iso: "GHS",
    minorDigits: 2,
    symbol: "GH₵",
    symbolSpaced: true,
    country: "GH",
  },
};

export function isCurrencyCode(value: unknown): value is CurrencyCode {
  return typeof value === "string" && (CURRENCY_CODES as readonly string[]).includes(value);
}

export function isCountry(value: unknown): value is Country {
  return typeof value === "string" && (COUNTRIES as readonly string[]).includes(value);
}

/** The payout currency of a country: currencyOfCountry("NG") → "NGNKOBO". */
export function currencyOfCountry(country: Country): FiatCurrencyCode {
  switch (country) {
    case "NG":
      return "NGNKOBO";
    case "KE":
      return "KESCENT";
    case "ZA":
      return "ZARCENT";
    case "GH":
      return "GHSPESEWA";
  }
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
