import { CURRENCIES, type CurrencyCode } from "./currencies.ts";
import { toMajorString } from "./decimal.ts";

/**
 * Display of amounts with Intl.NumberFormat. Intl supplies grouping, decimal mark and symbol position for the
 * locale; the symbol itself is ours (₦, KSh, R, GH₵) so every locale shows the same, recognisable sign.
 * Decimal strings (not floats) are handed to Intl, so large amounts are formatted exactly.
 */

/** Bot languages ICU may not know (small-icu builds) → a locale of the same country that it will. */
const LOCALE_FALLBACKS: Record<string, readonly string[]> = {
  pcm: ["pcm-NG", "en-NG"],
  yo: ["yo-NG", "en-NG"],
  ha: ["ha-NG", "en-NG"],
  ig: ["ig-NG", "en-NG"],
  sw: ["sw-KE", "en-KE"],
  zu: ["zu-ZA", "en-ZA"],
  ak: ["ak-GH", "en-GH"],
};
const DEFAULT_LOCALE = "en";

const resolved = new Map<string, string>();

function supported(tag: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length > 0;
  } catch {
    // RangeError for a malformed tag: treat as unsupported rather than crash a reply.
    return false;
  }
}

/** The locale Intl will actually use for `locale` (a bot language like "pcm" or a full tag); never throws. */
export function resolveNumberLocale(locale: string | undefined): string {
  const wanted = (locale ?? DEFAULT_LOCALE).trim() || DEFAULT_LOCALE;
  const cached = resolved.get(wanted);
  if (cached) return cached;
  const language = wanted.split(/[-_]/)[0]?.toLowerCase() ?? "";
  const candidates = [wanted.replace(/_/g, "-"), ...(LOCALE_FALLBACKS[language] ?? []), language];
  const found = candidates.find((candidate) => candidate && supported(candidate)) ?? DEFAULT_LOCALE;
  resolved.set(wanted, found);
  return found;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, minFraction: number, maxFraction: number): Intl.NumberFormat {
  const key = `${locale}|${minFraction}|${maxFraction}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      minimumFractionDigits: minFraction,
      maximumFractionDigits: maxFraction,
    });
    numberFormats.set(key, format);
  }
  return format;
}

const symbolFirst = new Map<string, boolean>();

/** Whether the locale writes the currency sign before the number (en: "₦2.00") or after (fr: "2,00 ₦"). */
function currencyBeforeNumber(locale: string, iso: string): boolean {
  const key = `${locale}|${iso}`;
  let before = symbolFirst.get(key);
  if (before === undefined) {
    const parts = new Intl.NumberFormat(locale, { style: "currency", currency: iso }).formatToParts(1);
    const currencyAt = parts.findIndex((part) => part.type === "currency");
    const integerAt = parts.findIndex((part) => part.type === "integer");
    before = currencyAt < integerAt;
    symbolFirst.set(key, before);
  }
  return before;
}

/** A major-unit decimal string ("2000.50") formatted for the locale without a symbol ("2,000.50", "2 000,50"). */
function formatDecimal(decimal: string, locale: string, minFraction: number, maxFraction: number): string {
  // ES2023 Intl formats numeric strings exactly; the cast only satisfies older lib typings.
  return numberFormat(locale, minFraction, maxFraction).format(decimal as unknown as number);
}

/**
 * "₦2,000.00", "KSh 1,500.00", "R 50.00", "GH₵ 20.00", "21,000 sats" (en); "2 000,00 ₦" (fr).
 * BTCSAT amounts are shown in sats. Throws a RangeError if `minor` is not a safe integer.
 */
export function formatMoney(minor: number, currency: CurrencyCode, locale?: string): string {
  if (currency === "BTCSAT") return formatSats(minor, locale);
  const info = CURRENCIES[currency];
  const tag = resolveNumberLocale(locale);
  const digits = info.minorDigits;
  const number = formatDecimal(toMajorString(Math.abs(minor), currency), tag, digits, digits);
  const body = currencyBeforeNumber(tag, info.iso)
    ? `${info.symbol}${info.symbolSpaced ? " " : ""}${number}`
    : `${number} ${info.symbol}`;
  return minor < 0 ? `-${body}` : body;
}

/** "21,000 sats", "1 sat". */
export function formatSats(sats: number, locale?: string): string {
  if (!Number.isSafeInteger(sats)) throw new RangeError(`sats must be a safe integer, got ${sats}`);
  const number = formatDecimal(String(sats), resolveNumberLocale(locale), 0, 0);
  return `${number} ${Math.abs(sats) === 1 ? "sat" : "sats"}`;
}

/** Sats shown as whole bitcoin without trailing zeros: 21000 → "0.00021 BTC", 100000000 → "1 BTC". */
export function formatBtc(sats: number, locale?: string): string {
  const decimal = toMajorString(sats, "BTCSAT");
  return `${formatDecimal(decimal, resolveNumberLocale(locale), 0, 8)} BTC`;
}

/** The number part of formatMoney without the symbol: 150000 KESCENT → "1,500.00"; 21000 BTCSAT → "21,000". */
export function formatAmountNumber(minor: number, currency: CurrencyCode, locale?: string): string {
  const digits = currency === "BTCSAT" ? 0 : CURRENCIES[currency].minorDigits;
  const decimal = currency === "BTCSAT" ? String(minor) : toMajorString(minor, currency);
  return formatDecimal(decimal, resolveNumberLocale(locale), digits, digits);
}

const decimalMarks = new Map<string, "." | ",">();

/** The decimal mark of a locale: "." for en, "," for fr/es/en-ZA. */
export function decimalSeparator(locale?: string): "." | "," {
  const tag = resolveNumberLocale(locale);
  let mark = decimalMarks.get(tag);
  if (!mark) {
    const part = new Intl.NumberFormat(tag).formatToParts(1.5).find((p) => p.type === "decimal");
    mark = part?.value === "," ? "," : ".";
    decimalMarks.set(tag, mark);
  }
  return mark;
}
