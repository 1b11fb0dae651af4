import { describe, expect, it } from "vitest";
import {
  decimalSeparator,
  formatAmountNumber,
  formatBtc,
  formatMoney,
  formatSats,
  resolveNumberLocale,
} from "#src/money/index.js";

const BOT_LOCALES = ["en", "fr", "es", "pcm", "yo", "ha", "ig", "sw", "zu", "ak"];
/** fr groups with a narrow no-break space. */
const NNBSP = "\u202f";

describe("formatMoney", () => {
  it("writes the amounts users expect in English", () => {
    expect(formatMoney(200000, "NGNKOBO", "en")).toBe("₦2,000.00");
    expect(formatMoney(150000, "KESCENT", "en")).toBe("KSh 1,500.00");
    expect(formatMoney(5000, "ZARCENT", "en")).toBe("R 50.00");
    expect(formatMoney(2000, "GHSPESEWA", "en")).toBe("GH₵ 20.00");
    expect(formatMoney(21000, "BTCSAT", "en")).toBe("21,000 sats");
    expect(formatMoney(200050, "NGNKOBO")).toBe("₦2,000.50");
  });

  it("follows the locale's grouping, decimal mark and symbol position", () => {
    expect(formatMoney(200050, "NGNKOBO", "fr")).toBe(`2${NNBSP}000,50 ₦`);
    expect(formatMoney(1500000, "NGNKOBO", "es")).toBe("15.000,00 ₦");
    expect(formatMoney(200050, "ZARCENT", "en-ZA")).toBe("R 2\u00a0000,50");
  });

  it("formats negative amounts and exact large amounts without float rounding", () => {
    expect(formatMoney(-200050, "NGNKOBO", "en")).toBe("-₦2,000.50");
    expect(formatMoney(Number.MAX_SAFE_INTEGER, "NGNKOBO", "en")).toBe("₦90,071,992,547,409.91");
    expect(() => formatMoney(1.5, "NGNKOBO", "en")).toThrow(RangeError);
  });

  it("never crashes on a bot locale, an unknown tag or a malformed one", () => {
    for (const locale of [...BOT_LOCALES, "xx", "!!", "", "en_NG"]) {
      const text = formatMoney(200050, "NGNKOBO", locale);
      expect(text).toContain("₦");
      expect(text.replace(/\D/g, "")).toBe("200050");
    }
  });
});

describe("sats and bitcoin", () => {
  it("formats sats with grouping", () => {
    expect(formatSats(21000, "en")).toBe("21,000 sats");
    expect(formatSats(1, "en")).toBe("1 sat");
    expect(formatSats(2100000000000000, "en")).toBe("2,100,000,000,000,000 sats");
    expect(formatSats(21000, "es")).toBe("21.000 sats");
  });

  it("formats whole bitcoin without trailing zeros", () => {
    expect(formatBtc(21000, "en")).toBe("0.00021 BTC");
    expect(formatBtc(100000000, "en")).toBe("1 BTC");
    expect(formatBtc(1, "en")).toBe("0.00000001 BTC");
    expect(formatBtc(21000, "fr")).toBe("0,00021 BTC");
  });

  it("offers the bare number as in formatMoney", () => {
    expect(formatAmountNumber(150000, "KESCENT", "en")).toBe("1,500.00");
    expect(formatAmountNumber(21000, "BTCSAT", "en")).toBe("21,000");
  });
});

describe("locale resolution", () => {
  it("keeps locales Intl knows and falls back for the rest", () => {
    expect(resolveNumberLocale("en")).toBe("en");
    expect(resolveNumberLocale("fr")).toBe("fr");
    expect(resolveNumberLocale(undefined)).toBe("en");
    expect(resolveNumberLocale("xx")).toBe("en");
    expect(resolveNumberLocale("!!")).toBe("en");
    for (const locale of BOT_LOCALES) {
      const tag = resolveNumberLocale(locale);
      expect(Intl.NumberFormat.supportedLocalesOf([tag])).toEqual([tag]);
    }
  });

  it("knows each locale's decimal mark", () => {
    expect(decimalSeparator("en")).toBe(".");
    expect(decimalSeparator("fr")).toBe(",");
    expect(decimalSeparator("es")).toBe(",");
  });
});
