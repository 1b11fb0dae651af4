import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CORRIDORS, COUNTRIES, methodOf } from "#src/corridors/index.js";
import { DEFAULT_LOCALES_DIR, LANGUAGES } from "#src/i18n/index.js";
import { CURRENCIES, currencyOfCountry, isCurrencyCode, parseAmount, zoneName } from "#src/money/index.js";

/**
 * The corridor table (src/corridors) is the one place a country's facts live: it must be complete and agree with
 * src/money and the locales, and no other source file may keep its own list of the corridors.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Keys every corridor needs in every locale ("<c>" is the country code). */
const LOCALE_KEYS = [
  "payout:country.names.<c>",
  "payout:country.methods.<c>",
  "payout:country.short.<c>",
  "price:country.<c>",
  "status:receipt.reference.<c>",
];

function localeValue(language: string, key: string): unknown {
  const [namespace, path] = key.split(":") as [string, string];
  const tree: unknown = JSON.parse(
    readFileSync(join(DEFAULT_LOCALES_DIR, language, `${namespace}.json`), "utf8"),
  );
  return path
    .split(".")
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], tree);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

/** Source text without comments, so prose naming the corridors ("NGN, KES, ZAR and GHS") is not a list. */
function codeOf(file: string): string {
  return readFileSync(join(ROOT, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(/\s\/\/ .*$/gm, "");
}

describe("corridor table", () => {
  it("has at least the four corridors, each with a distinct currency, zone and flag", () => {
    expect(COUNTRIES).toEqual(expect.arrayContaining(["NG", "KE", "ZA", "GH"]));
    for (const field of ["flag", "timeZone"] as const) {
      expect(new Set(COUNTRIES.map((country) => CORRIDORS[country][field])).size).toBe(COUNTRIES.length);
    }
    expect(new Set(COUNTRIES.map(currencyOfCountry)).size).toBe(COUNTRIES.length);
  });

  it("agrees with src/money: the currency, its minor unit, symbol and country", () => {
    for (const country of COUNTRIES) {
      const { currency } = CORRIDORS[country];
      expect(isCurrencyCode(currency.code)).toBe(true);
      expect(CURRENCIES[currency.code]).toEqual({ ...currency, country });
      expect(currency.code.startsWith(currency.iso)).toBe(true);
      expect(currency.minorDigits).toBe(2);
    }
  });

  it("names valid IANA zones, each shown by its own name", () => {
    for (const country of COUNTRIES) {
      const { timeZone, zoneName: name } = CORRIDORS[country];
      expect(() => new Intl.DateTimeFormat("en", { timeZone })).not.toThrow();
      expect(zoneName(country)).toBe(name);
      expect(name).toMatch(/^[A-Z]{3,4}$/);
    }
  });

  it("has a flag of two regional indicators matching the country code", () => {
    for (const country of COUNTRIES) {
      const letters = [...CORRIDORS[country].flag].map((symbol) =>
        String.fromCharCode(symbol.codePointAt(0)! - 0x1f1e6 + 65),
      );
      expect(letters.join("")).toBe(country);
    }
  });

  it("has a positive minimum below its ceiling, in whole minor units", () => {
    for (const country of COUNTRIES) {
      const { minimum, maximumMinor } = CORRIDORS[country];
      expect(Number.isSafeInteger(maximumMinor)).toBe(true);
      const floor = "fixedMinor" in minimum ? minimum.fixedMinor : minimum.usdCents;
      expect(Number.isSafeInteger(floor) && floor > 0).toBe(true);
      if ("fixedMinor" in minimum) expect(minimum.fixedMinor).toBeLessThan(maximumMinor);
    }
  });

  it("pays in a step that divides its minimum and ceiling, and names a person for its example", () => {
    for (const country of COUNTRIES) {
      const { payableStepMinor: step, minimum, maximumMinor, nameExample } = CORRIDORS[country];
      expect(Number.isSafeInteger(step) && step > 0).toBe(true);
      expect(maximumMinor % step).toBe(0);
      if ("fixedMinor" in minimum) expect(minimum.fixedMinor % step).toBe(0);
      expect(nameExample).toMatch(/^\S+ \S+$/);
    }
  });

  it("reads every spelling of a corridor's currency as that currency", () => {
    for (const country of COUNTRIES) {
      const { currency, spellings } = CORRIDORS[country];
      expect(spellings).toContain(currency.iso.toLowerCase());
      for (const spelling of spellings) {
        const parsed = parseAmount(`${spelling} 5000`, { currency: currency.code });
        expect(parsed).toMatchObject({ ok: true, minor: 500_000, currency: currency.code });
      }
    }
  });

  it("gives each payout method to one corridor and recognises its beneficiary shape", () => {
    const methods = COUNTRIES.flatMap((country) => CORRIDORS[country].methods);
    expect(new Set(methods).size).toBe(methods.length);
    expect(methodOf({ bankCode: "058", accountNumber: "0123456789", name: "Ada" })).toEqual({
      corridor: "NG",
      method: "ngn_bank",
    });
    expect(methodOf({ identifierType: "paytotill", identifiers: { accountNumber: "5" } })).toEqual({
      corridor: "KE",
      method: "kes_till",
    });
    expect(methodOf({ name: "Thabo", bankName: "Capitec", bankAccountNumber: "1" })?.method).toBe("zar_bank");
    expect(methodOf({ identifierType: "MTN", phoneNumber: "233241234567" })?.corridor).toBe("GH");
    expect(methodOf({ iban: "DE00" })).toBeUndefined();
  });

  it("has every corridor's names in all ten locales", () => {
    expect(LANGUAGES).toHaveLength(10);
    const missing = LANGUAGES.flatMap(({ code }) =>
      COUNTRIES.flatMap((country) =>
        LOCALE_KEYS.map((template) => template.replace("<c>", country)).filter((key) => {
          const value = localeValue(code, key);
          return typeof value !== "string" || value.trim() === "";
        }),
      ).map((key) => `${code} ${key}`),
    );
    expect(missing).toEqual([]);
  });
});

describe("no second corridor list", () => {
  // The sandbox keeps its own data, as the outside world does.
  const exempt = (file: string) => file.startsWith("src/corridors/") || file.startsWith("src/standins/");
  const FILES = sourceFiles(join(ROOT, "src")).filter((file) => !exempt(file));

  it("finds the source files it checks", () => {
    expect(FILES.length).toBeGreaterThan(100);
  });

  it("no source file outside src/corridors names every country or every currency", () => {
    const listing = FILES.filter((file) => {
      const code = codeOf(file);
      const all = (words: string[]) => words.every((word) => new RegExp(`\\b${word}\\b`).test(code));
      return (
        COUNTRIES.every((country) => code.includes(`"${country}"`)) ||
        all(COUNTRIES.map((country) => CORRIDORS[country].currency.iso)) ||
        all(COUNTRIES.map((country) => CORRIDORS[country].currency.code))
      );
    });
    expect(listing).toEqual([]);
  });
});
