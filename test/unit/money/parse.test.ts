import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CURRENCY_CODES,
  type CurrencyCode,
  formatBtc,
  formatMoney,
  type ParseAmountOptions,
  parseAmount,
  toMajorString,
} from "#src/money/index.js";

const NGN: ParseAmountOptions = { currency: "NGNKOBO" };
const LOCALES = ["en", "fr", "es", "pcm", "yo", "ha", "ig", "sw", "zu", "ak", "en-ZA", "de", "de-CH"];

function minorOf(input: string, options: ParseAmountOptions = NGN): number | string {
  const result = parseAmount(input, options);
  return result.ok ? result.minor : result.reason;
}

describe("parseAmount accepts what people type", () => {
  it.each([
    ["2000", 200000],
    ["2,000", 200000],
    ["2 000", 200000],
    ["2\u00a0000", 200000],
    ["2000.50", 200050],
    ["2,000.50", 200050],
    ["2.000,50", 200050],
    ["2 000,50", 200050],
    ["2000,5", 200050],
    ["₦2,000", 200000],
    ["₦ 2,000.00", 200000],
    ["NGN 2000", 200000],
    ["ngn2000", 200000],
    ["N2000", 200000],
    ["2000 naira", 200000],
    ["+2000", 200000],
    ["1,000,000", 100000000],
    ["1.000.000", 100000000],
    ["5k", 500000],
    ["2.5k", 250000],
    ["２０００", 200000],
    [".5", 50],
  ])("%s → %i kobo", (input, minor) => {
    expect(minorOf(input)).toBe(minor);
  });

  it("reads each fiat currency's own symbols", () => {
    expect(parseAmount("KSh 1,500", { currency: "KESCENT" })).toEqual({
      ok: true,
      minor: 150000,
      currency: "KESCENT",
      detected: "KESCENT",
    });
    expect(minorOf("1,500/=", { currency: "KESCENT" })).toBe(150000);
    expect(minorOf("KES 1500", { currency: "KESCENT" })).toBe(150000);
    expect(minorOf("R 50", { currency: "ZARCENT" })).toBe(5000);
    expect(minorOf("R50.25", { currency: "ZARCENT" })).toBe(5025);
    expect(minorOf("50 rand", { currency: "ZARCENT" })).toBe(5000);
    expect(minorOf("GH₵ 20", { currency: "GHSPESEWA" })).toBe(2000);
    expect(minorOf("GHS 20.5", { currency: "GHSPESEWA" })).toBe(2050);
    expect(minorOf("20 cedis", { currency: "GHSPESEWA" })).toBe(2000);
  });

  it("reads sats and BTC when sats are expected", () => {
    const sats: ParseAmountOptions = { currency: "BTCSAT" };
    expect(minorOf("21000", sats)).toBe(21000);
    expect(minorOf("21,000 sats", sats)).toBe(21000);
    expect(minorOf("21.000 sats", sats)).toBe(21000);
    expect(minorOf("21k sats", sats)).toBe(21000);
    expect(minorOf("0.0005 BTC", sats)).toBe(50000);
    expect(minorOf("₿0.00000001", sats)).toBe(1);
    expect(minorOf("1 sat", sats)).toBe(1);
  });

  it("accepts sats or BTC instead of fiat only when allowed, reporting the currency", () => {
    const options: ParseAmountOptions = { currency: "NGNKOBO", allowBtcUnits: true };
    expect(parseAmount("21000 sats", options)).toEqual({
      ok: true,
      minor: 21000,
      currency: "BTCSAT",
      detected: "BTCSAT",
    });
    expect(parseAmount("0.0005 BTC", options)).toMatchObject({ ok: true, minor: 50000, currency: "BTCSAT" });
    expect(parseAmount("2000", options)).toEqual({ ok: true, minor: 200000, currency: "NGNKOBO" });
  });

  it("lets the locale settle a lone separator before three digits", () => {
    expect(minorOf("1.500")).toBe("too_many_decimals");
    expect(minorOf("1,500")).toBe(150000);
    expect(minorOf("1.500", { currency: "NGNKOBO", locale: "es" })).toBe(150000);
    expect(minorOf("1,500", { currency: "NGNKOBO", locale: "fr" })).toBe("too_many_decimals");
    expect(minorOf("1,500", { currency: "NGNKOBO", locale: "en" })).toBe(150000);
    // Not ambiguous: a leading zero or four digits before the mark cannot be a thousands group.
    expect(minorOf("0,500", { currency: "BTCSAT" })).toBe("too_many_decimals");
    expect(minorOf("0.001 BTC", { currency: "BTCSAT" })).toBe(100000);
  });
});

describe("parseAmount rejects with a reason", () => {
  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["-2000", "negative"],
    ["−2000", "negative"],
    ["-₦2,000", "negative"],
    ["0", "zero"],
    ["0.00", "zero"],
    ["-0", "zero"],
    ["0k", "zero"],
    ["2000.555", "too_many_decimals"],
    ["2000.500", "too_many_decimals"],
    ["0.001", "too_many_decimals"],
    ["abc", "not_a_number"],
    ["₦", "not_a_number"],
    ["2000 abc", "not_a_number"],
    ["20 00", "not_a_number"],
    ["2,00,000", "not_a_number"],
    ["2.000.50,1,2", "not_a_number"],
    ["1e5", "not_a_number"],
    ["2000-", "not_a_number"],
    ["99999999999999999", "too_large"],
    ["₦ 2000 KSh", "mixed_currency"],
    ["NGN 2000 $", "mixed_currency"],
    ["KSh 1500", "wrong_currency"],
  ])("%j → %s", (input, reason) => {
    expect(minorOf(input)).toBe(reason);
  });

  it("rejects amounts above the caller's maximum", () => {
    expect(minorOf("3000", { currency: "NGNKOBO", max: 200000 })).toBe("too_large");
    expect(minorOf("2000", { currency: "NGNKOBO", max: 200000 })).toBe(200000);
    expect(minorOf("0.5 BTC", { currency: "NGNKOBO", allowBtcUnits: true, maxSats: 1000000 })).toBe(
      "too_large",
    );
    expect(minorOf("0.5 BTC", { currency: "NGNKOBO", allowBtcUnits: true, max: 100 })).toBe(50000000);
    expect(minorOf("0.01 BTC", { currency: "NGNKOBO", allowBtcUnits: true, maxSats: 1000000 })).toBe(1000000);
  });

  it("names the currency it saw when it is not the expected one", () => {
    expect(parseAmount("21000 sats", NGN)).toEqual({
      ok: false,
      reason: "wrong_currency",
      detected: "BTCSAT",
      detectedMinor: 21000,
    });
    expect(parseAmount("21k sats", NGN)).toMatchObject({ detected: "BTCSAT", detectedMinor: 21000 });
    expect(parseAmount("0.0005 BTC", NGN)).toMatchObject({ detected: "BTCSAT", detectedMinor: 50000 });
    expect(parseAmount("₦2,000", { currency: "KESCENT" })).toMatchObject({
      reason: "wrong_currency",
      detected: "NGNKOBO",
      detectedMinor: 200000,
    });
    expect(parseAmount("2000.5 sats", NGN)).toEqual({
      ok: false,
      reason: "wrong_currency",
      detected: "BTCSAT",
    });
  });

  it("reports foreign currencies as wrong_currency with their code", () => {
    expect(parseAmount("$5", NGN)).toEqual({ ok: false, reason: "wrong_currency", foreign: "USD" });
    expect(parseAmount("10 EUR", NGN)).toEqual({ ok: false, reason: "wrong_currency", foreign: "EUR" });
    expect(parseAmount("£3", { currency: "BTCSAT" })).toMatchObject({ foreign: "GBP" });
  });
});

describe("parse ∘ format round-trips", () => {
  const amount = fc.oneof(
    fc.integer({ min: 1, max: 100_000_000 }),
    fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  );
  const currency = fc.constantFrom<CurrencyCode>(...CURRENCY_CODES);
  const locale = fc.constantFrom(...LOCALES);

  it("formatMoney output parses back to the same amount in every currency and locale", () => {
    fc.assert(
      fc.property(amount, currency, locale, (minor, code, tag) => {
        const text = formatMoney(minor, code, tag);
        const withLocale = parseAmount(text, { currency: code, locale: tag });
        expect(withLocale).toMatchObject({ ok: true, minor, currency: code });
        // The symbols, grouping and decimals of these locales are unambiguous even without the hint.
        expect(parseAmount(text, { currency: code })).toMatchObject({ ok: true, minor, currency: code });
      }),
      { numRuns: 2000 },
    );
  });

  it("formatBtc output parses back to the same sats with the locale's hint", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_100_000_000_000_000 }), locale, (sats, tag) => {
        const text = formatBtc(sats, tag);
        expect(parseAmount(text, { currency: "BTCSAT", locale: tag })).toMatchObject({
          ok: true,
          minor: sats,
        });
        expect(parseAmount(text, { currency: "NGNKOBO", allowBtcUnits: true, locale: tag })).toMatchObject({
          ok: true,
          minor: sats,
          currency: "BTCSAT",
        });
      }),
      { numRuns: 1000 },
    );
  });

  it("toMajorString output parses back for every currency", () => {
    fc.assert(
      fc.property(amount, currency, (minor, code) => {
        const text = code === "BTCSAT" ? `${toMajorString(minor, code)} BTC` : toMajorString(minor, code);
        expect(parseAmount(text, { currency: code })).toMatchObject({ ok: true, minor });
      }),
    );
  });

  it("never throws and never returns a non-integer, whatever is typed", () => {
    fc.assert(
      fc.property(fc.string(), currency, fc.boolean(), (input, code, allowBtcUnits) => {
        const result = parseAmount(input, { currency: code, allowBtcUnits });
        if (result.ok) {
          expect(Number.isSafeInteger(result.minor)).toBe(true);
          expect(result.minor).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
