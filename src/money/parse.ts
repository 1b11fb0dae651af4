import { CORRIDORS, COUNTRIES } from "#src/corridors/index.js";
import { CURRENCIES, type CurrencyCode } from "./currencies.ts";
import { decimalToMinorBig } from "./decimal.ts";
import { decimalSeparator } from "./format.ts";

/**
 * parseAmount: what a user typed → integer minor units, or a reason the bot can map to an i18n key.
 *
 * Accepted: "2000", "2,000", "2 000", "2000.50", "2 000,50", "₦2,000", "NGN 2000", "KSh 1,500", "R 50", "GH₵ 20",
 * "21000 sats", "21k sats" (k = thousand, any currency: "5k" → 5000), "0.0005 BTC" (→ sats).
 *
 * Decisions:
 * - mixed_currency: the input names two different currencies or units ("₦ 2000 KSh", "0.1 BTC sats").
 * - wrong_currency: it names exactly one currency and that is not the expected one — a supported one (then
 *   `detected` says which, and `detectedMinor` the amount in it, so the bot can offer "did you mean sats?") or a
 *   foreign one such as "$5" or "10 EUR" (then `foreign` holds its code).
 * - sats/BTC while a fiat currency is expected: accepted as BTCSAT when `allowBtcUnits`, else wrong_currency.
 * - Separators: with both "." and "," the last one is the decimal mark. A lone "." or "," followed by exactly three
 *   digits ("1,500" / "1.500") is ambiguous: in sats it is grouping; otherwise the locale's decimal mark decides,
 *   and without a locale "," groups and "." is decimal (so "1.500" NGN is too_many_decimals, never 1.5 by surprise).
 * - More decimals than the unit has is too_many_decimals even when they are zeros ("2000.500" NGN).
 */

export type ParseFailureReason =
  | "empty"
  | "negative"
  | "zero"
  | "too_many_decimals"
  | "not_a_number"
  | "too_large"
  | "mixed_currency"
  | "wrong_currency";

export interface ParseAmountOptions {
  /** The currency the bot asked for; a bare number is in its major unit (sats for BTCSAT). */
  currency: CurrencyCode;
  /** Accept "21000 sats" / "0.001 BTC" while a fiat currency is expected (the result's currency is BTCSAT). */
  allowBtcUnits?: boolean;
  /** Largest accepted amount, inclusive, in minor units of `currency`. */
  max?: number;
  /** Largest accepted amount in sats when the user typed sats/BTC although `currency` is fiat. */
  maxSats?: number;
  /** The user's locale: settles "1.500" vs "1,500" for locales whose decimal mark is ",". */
  locale?: string;
}

export type ParseAmountResult =
  | { ok: true; minor: number; currency: CurrencyCode; detected?: CurrencyCode }
  | {
      ok: false;
      reason: ParseFailureReason;
      /** A supported currency the input named (wrong_currency). */
      detected?: CurrencyCode;
      /** The amount in `detected`'s minor units, when it parses cleanly there. */
      detectedMinor?: number;
      /** An unsupported currency the input named, e.g. "USD" for "$5". */
      foreign?: string;
    };

type Unit = "fiat" | "sats" | "btc";
type Mention = { kind: "currency"; currency: CurrencyCode; unit: Unit } | { kind: "foreign"; code: string };

const fiat = (currency: CurrencyCode): Mention => ({ kind: "currency", currency, unit: "fiat" });
const foreign = (code: string): Mention => ({ kind: "foreign", code });
const SATS: Mention = { kind: "currency", currency: "BTCSAT", unit: "sats" };
const BTC: Mention = { kind: "currency", currency: "BTCSAT", unit: "btc" };

/** Lower-case spellings users type. Single letters ("n", "r") only count when no letter touches them. */
const MENTIONS: ReadonlyArray<readonly [string, Mention]> = [
  ...COUNTRIES.flatMap((country) => {
    const { currency, spellings } = CORRIDORS[country];
    return spellings.map((spelling) => [spelling, fiat(currency.code)] as const);
  }),
  ["sat", SATS],
  ["sats", SATS],
  ["satoshi", SATS],
  ["satoshis", SATS],
  ["btc", BTC],
  ["₿", BTC],
  ["bitcoin", BTC],
  ["$", foreign("USD")],
  ["us$", foreign("USD")],
  ["usd", foreign("USD")],
  ["usdt", foreign("USDT")],
  ["usdc", foreign("USDC")],
  ["€", foreign("EUR")],
  ["eur", foreign("EUR")],
  ["£", foreign("GBP")],
  ["gbp", foreign("GBP")],
  ["cfa", foreign("XOF")],
  ["xof", foreign("XOF")],
  ["xaf", foreign("XAF")],
  ["ugx", foreign("UGX")],
  ["tzs", foreign("TZS")],
];
const MENTION_BY_TEXT = new Map(MENTIONS);
const MENTION_RE = new RegExp(
  `(?<!\\p{L})(?:${[...MENTION_BY_TEXT.keys()]
    .sort((a, b) => b.length - a.length)
    .map((text) => text.replace(/[$.*+?^()[\]{}|\\]/g, "\\$&"))
    .join("|")})(?!\\p{L})`,
  "gu",
);
/** Kenyan "1,500/=" and "1,500/-" mean nothing more than "shillings, exactly". */
const DECORATION_RE = /\/[=-]/g;
const NUMBER_RE = /^([+\-−–])?\s*(\d[\d.,'’ ]*\d|\d|[.,]\d+)\s*(k)?$/;

const mentionKey = (mention: Mention) =>
  mention.kind === "foreign" ? `foreign:${mention.code}` : `${mention.currency}:${mention.unit}`;

function unitDigits(unit: Unit, currency: CurrencyCode): number {
  if (unit === "sats") return 0;
  if (unit === "btc") return 8;
  return CURRENCIES[currency].minorDigits;
}

interface NumberParts {
  negative: boolean;
  body: string;
  thousands: boolean;
}

type Magnitude = { ok: true; minor: bigint } | { ok: false; reason: ParseFailureReason };

export function parseAmount(input: string, options: ParseAmountOptions): ParseAmountResult {
  const text = input.normalize("NFKC").toLowerCase().trim();
  if (text === "") return { ok: false, reason: "empty" };

  const mentions = new Map<string, Mention>();
  const rest = text
    .replace(MENTION_RE, (match) => {
      const mention = MENTION_BY_TEXT.get(match);
      if (mention) mentions.set(mentionKey(mention), mention);
      return " ";
    })
    .replace(DECORATION_RE, " ")
    .trim();

  const numberMatch = NUMBER_RE.exec(rest);
  if (!numberMatch) return { ok: false, reason: "not_a_number" };
  const number: NumberParts = {
    negative: numberMatch[1] !== undefined && numberMatch[1] !== "+",
    body: numberMatch[2] ?? "",
    thousands: numberMatch[3] !== undefined,
  };

  if (mentions.size > 1) return { ok: false, reason: "mixed_currency" };
  const mention = [...mentions.values()][0];
  if (mention?.kind === "foreign") return { ok: false, reason: "wrong_currency", foreign: mention.code };

  const expected = options.currency;
  const unit: Unit = mention ? mention.unit : expected === "BTCSAT" ? "sats" : "fiat";
  const currency = mention ? mention.currency : expected;
  const detected = mention ? { detected: mention.currency } : {};

  if (currency !== expected && !(currency === "BTCSAT" && options.allowBtcUnits)) {
    const elsewhere = magnitude(number, unitDigits(unit, currency), options.locale);
    const detectedMinor =
      elsewhere.ok && elsewhere.minor <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(elsewhere.minor)
        : undefined;
    return {
      ok: false,
      reason: "wrong_currency",
      detected: currency,
      ...(detectedMinor !== undefined ? { detectedMinor } : {}),
    };
  }

  const result = magnitude(number, unitDigits(unit, currency), options.locale);
  if (!result.ok) return { ok: false, reason: result.reason, ...detected };
  const cap = currency === expected ? options.max : options.maxSats;
  const limit = BigInt(Math.min(cap ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  if (result.minor > limit) return { ok: false, reason: "too_large", ...detected };
  return { ok: true, minor: Number(result.minor), currency, ...detected };
}

/** The positive amount in minor units of a unit with `digits` decimals, or why there is none. */
function magnitude(number: NumberParts, digits: number, locale: string | undefined): Magnitude {
  const split = splitDecimal(number.body, digits, locale);
  if (!split) return { ok: false, reason: "not_a_number" };
  let { whole, fraction } = split;
  if (number.thousands) {
    whole = `${whole}${fraction.slice(0, 3).padEnd(3, "0")}`;
    fraction = fraction.slice(3);
  }
  const nonZero = /[1-9]/.test(whole + fraction);
  if (number.negative && nonZero) return { ok: false, reason: "negative" };
  if (!nonZero) return { ok: false, reason: "zero" };
  const minor = decimalToMinorBig(whole, fraction, digits);
  if (minor === undefined) return { ok: false, reason: "too_many_decimals" };
  return { ok: true, minor };
}

const GROUPED_WHOLE = /^\d{1,3}(?:[.,'’ ]\d{3})+$/;
/** A whole part that could sit before a thousands separator: "1", "12", "1 234", never "0" or "1234". */
const GROUP_LEAD = /^[1-9]\d{0,2}(?:[ '’]\d{3})*$/;

/** Split the digits-and-separators body into whole and fraction digits, or undefined if malformed. */
function splitDecimal(
  body: string,
  digits: number,
  locale: string | undefined,
): { whole: string; fraction: string } | undefined {
  const dots = body.split(".").length - 1;
  const commas = body.split(",").length - 1;
  let mark: "." | "," | undefined;
  if (dots > 0 && commas > 0) {
    mark = body.lastIndexOf(".") > body.lastIndexOf(",") ? "." : ",";
    if ((mark === "." ? dots : commas) !== 1) return undefined;
  } else if (dots + commas === 1) {
    const sep = dots === 1 ? "." : ",";
    const at = body.indexOf(sep);
    const ambiguous = /^\d{3}$/.test(body.slice(at + 1)) && GROUP_LEAD.test(body.slice(0, at));
    if (!ambiguous) mark = sep;
    else if (digits === 0) mark = undefined;
    else if (locale !== undefined) mark = sep === decimalSeparator(locale) ? sep : undefined;
    else mark = sep === "." ? "." : undefined;
  }
  const at = mark ? body.indexOf(mark) : -1;
  const wholeRaw = at >= 0 ? body.slice(0, at) : body;
  const fraction = at >= 0 ? body.slice(at + 1) : "";
  if (!/^\d*$/.test(fraction)) return undefined;
  if (/\D/.test(wholeRaw) && !GROUPED_WHOLE.test(wholeRaw)) return undefined;
  const whole = wholeRaw.replace(/\D/g, "");
  if (whole === "" && fraction === "") return undefined;
  return { whole: whole || "0", fraction };
}
