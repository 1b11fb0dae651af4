import { describe, expect, it } from "vitest";
import {
  byIso,
  COUNTRIES,
  CURRENCIES,
  CURRENCY_CODES,
  currencyOfCountry,
  fromMajorString,
  isCurrencyCode,
  isMinorAmount,
  isoOf,
  toMajorString,
} from "#src/money/index.js";

describe("currency table", () => {
  it("describes every API code", () => {
    expect(CURRENCY_CODES).toEqual(["BTCSAT", "NGNKOBO", "KESCENT", "ZARCENT", "GHSPESEWA"]);
    expect(CURRENCIES.NGNKOBO).toMatchObject({ iso: "NGN", minorDigits: 2, symbol: "₦", country: "NG" });
    expect(CURRENCIES.KESCENT).toMatchObject({ iso: "KES", minorDigits: 2, symbol: "KSh", country: "KE" });
    expect(CURRENCIES.ZARCENT).toMatchObject({ iso: "ZAR", minorDigits: 2, symbol: "R", country: "ZA" });
    expect(CURRENCIES.GHSPESEWA).toMatchObject({ iso: "GHS", minorDigits: 2, symbol: "GH₵", country: "GH" });
    expect(CURRENCIES.BTCSAT).toMatchObject({
      iso: "BTC",
      minorDigits: 8,
      symbol: "sats",
      country: undefined,
    });
  });

  it("maps countries to their payout currency and back", () => {
    for (const country of COUNTRIES) {
      const code = currencyOfCountry(country);
      expect(CURRENCIES[code].country).toBe(country);
    }
    expect(currencyOfCountry("NG")).toBe("NGNKOBO");
    expect(currencyOfCountry("GH")).toBe("GHSPESEWA");
  });

  it("looks currencies up by ISO code, case-insensitively", () => {
    expect(byIso("KES")?.code).toBe("KESCENT");
    expect(byIso(" btc ")?.code).toBe("BTCSAT");
    expect(byIso("zar")?.code).toBe("ZARCENT");
    expect(byIso("USD")).toBeUndefined();
    expect(isoOf("GHSPESEWA")).toBe("GHS");
  });

  it("recognises codes and minor amounts", () => {
    expect(isCurrencyCode("NGNKOBO")).toBe(true);
    expect(isCurrencyCode("NGN")).toBe(false);
    expect(isMinorAmount(200000)).toBe(true);
    expect(isMinorAmount(2000.5)).toBe(false);
    expect(isMinorAmount(Number.MAX_SAFE_INTEGER + 1)).toBe(false);
  });
});

describe("major-unit decimal strings", () => {
  it("converts minor units to exact decimal strings", () => {
    expect(toMajorString(200050, "NGNKOBO")).toBe("2000.50");
    expect(toMajorString(5, "KESCENT")).toBe("0.05");
    expect(toMajorString(-5, "ZARCENT")).toBe("-0.05");
    expect(toMajorString(21000, "BTCSAT")).toBe("0.00021000");
    expect(toMajorString(Number.MAX_SAFE_INTEGER, "GHSPESEWA")).toBe("90071992547409.91");
    expect(() => toMajorString(1.5, "NGNKOBO")).toThrow(RangeError);
  });

  it("parses canonical decimal strings and refuses anything else", () => {
    expect(fromMajorString("2000.50", "NGNKOBO")).toBe(200050);
    expect(fromMajorString("2000", "NGNKOBO")).toBe(200000);
    expect(fromMajorString("-1.5", "KESCENT")).toBe(-150);
    expect(fromMajorString("-0", "KESCENT")).toBe(0);
    expect(fromMajorString("0.0005", "BTCSAT")).toBe(50000);
    expect(fromMajorString("2000.505", "NGNKOBO")).toBeUndefined();
    expect(fromMajorString("2,000", "NGNKOBO")).toBeUndefined();
    expect(fromMajorString("₦2000", "NGNKOBO")).toBeUndefined();
    expect(fromMajorString("90071992547409.92", "NGNKOBO")).toBeUndefined();
  });
});
