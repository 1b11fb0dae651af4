import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LOCALES_DIR, LANGUAGES } from "#src/i18n/index.js";

/**
 * Every screen complete in every language: a value identical to English is a leftover unless what it says is only
 * names, units and formatting. Two rules decide that:
 * - after removing placeholders, HTML tags and the NAMES below, no letter is left ("{{n}}. {{flag}} {{label}}",
 *   "1 BTC = <b>{{amount}}</b>", "M-Pesa · Paybill · Till");
 * - or the key is in ALLOWED for that language, with the reason.
 * Stale ALLOWED entries fail too, so the list stays as small as the truth. Tags must match English everywhere
 * (Telegram rejects a message whose HTML is broken), as the placeholders already must (locales.test.ts).
 */
type Tree = { [key: string]: string | Tree };

/** Brands, product names, networks and units that every language writes as English does. */
const NAMES: readonly string[] = [
  "Payout API", // the provider's service, named as such in every locale's ops screens
  "MTN mobile money", // MTN Ghana's product name
  "Airtel Money",
  "AirtelTigo",
  "Telecel",
  "Vodafone",
  "Airtel",
  "M-Pesa",
  "MTN",
  "MoMo",
  "Paybill", // Safaricom's product names (what the recipient's phone says)
  "Buy Goods",
  "Till",
  "Bitcoin",
  "mainnet", // network names, as wallets show them
  "testnet",
  "regtest",
  "Lightning",
  "BOLT11",
  "Telegram",
  "BTC", // currency codes and unit names as the money is called in each market
  "USD",
  "sats",
  "naira",
  "shillings",
  "rand",
  "cedis",
];

/** key → languages where the English value is the right one, and why. Keep it short. */
const ALLOWED: Record<string, { languages: string[]; why: string }> = {
  "payout:country.names.NG": { languages: ["fr", "es", "sw", "pcm", "ak"], why: "Nigeria is spelt so there" },
  "price:country.NG": { languages: ["fr", "es", "sw", "pcm", "ak"], why: "Nigeria is spelt so there" },
  "payout:country.names.KE": {
    languages: ["fr", "sw", "ig", "ha", "pcm", "ak"],
    why: "Kenya is spelt so there",
  },
  "price:country.KE": { languages: ["fr", "sw", "ig", "ha", "pcm", "ak"], why: "Kenya is spelt so there" },
  "payout:country.names.GH": {
    languages: ["fr", "es", "sw", "ig", "ha", "pcm", "ak"],
    why: "Ghana is spelt so",
  },
  "price:country.GH": {
    languages: ["fr", "es", "sw", "ig", "ha", "pcm", "ak"],
    why: "Ghana is spelt so there",
  },
  "payout:country.names.ZA": { languages: ["pcm"], why: "Pidgin names the country in English" },
  "price:country.ZA": { languages: ["pcm"], why: "Pidgin names the country in English" },
  "common:menu_button": { languages: ["fr"], why: "« Menu » is the French word" },
  "payout:country.line": { languages: ["fr"], why: "« minimum » is the French word" },
  "buy:address.prefixes": { languages: ["pcm"], why: "Pidgin's “or” is “or”" },
  "payout:country.methods.NG": { languages: ["pcm"], why: "Pidgin says “bank account” as English does" },
  "payout:country.methods.ZA": { languages: ["pcm"], why: "Pidgin says “bank account” as English does" },
  "buy:quote.account_number": { languages: ["pcm"], why: "Pidgin says “account number” as English does" },
  "buy:quote.account_name": { languages: ["pcm"], why: "Pidgin says “account name” as English does" },
};

const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(tree: Tree, prefix = "", out = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else flatten(value, path, out);
  }
  return out;
}

function readLocale(code: string): Map<string, string> {
  const dir = join(DEFAULT_LOCALES_DIR, code);
  const values = new Map<string, string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".json"))) {
    const namespace = file.replace(/\.json$/, "");
    const tree = JSON.parse(readFileSync(join(dir, file), "utf8")) as Tree;
    for (const [key, value] of flatten(tree)) values.set(`${namespace}:${key}`, value);
  }
  return values;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const NAME_PATTERN = new RegExp(
  [...NAMES]
    .sort((a, b) => b.length - a.length)
    .map((name) => `(?<![\\p{L}])${escapeRegExp(name)}(?![\\p{L}])`)
    .join("|"),
  "gu",
);

/** Only names, units and formatting: nothing a translator would change. */
function onlyNamesAndFormat(value: string): boolean {
  const rest = value
    .replace(/\{\{[^}]*\}\}/g, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(NAME_PATTERN, " ");
  return !/\p{L}/u.test(rest);
}

/** Telegram's HTML tags (command descriptions write "<user>" as plain text, which is no tag). */
const TAG = /<\/?(b|strong|i|em|u|ins|s|strike|del|span|tg-spoiler|tg-emoji|a|code|pre|blockquote)\b/g;
const tags = (value: string) => [...value.matchAll(TAG)].map((match) => match[0]).sort();

const english = readLocale("en");
const others = LANGUAGES.filter((language) => language.code !== "en").map((language) => language.code);

/** English's value for a key of another locale (a plural form English lacks compares with English's _other). */
function englishFor(key: string): string | undefined {
  return english.get(key) ?? (PLURAL.test(key) ? english.get(key.replace(PLURAL, "_other")) : undefined);
}

describe("locales: nothing left in English", () => {
  it("the name rule keeps real words out", () => {
    expect(onlyNamesAndFormat("{{flag}} {{name}} · {{methods}}")).toBe(true);
    expect(onlyNamesAndFormat("1 BTC = <b>{{amount}}</b>")).toBe(true);
    expect(onlyNamesAndFormat("M-Pesa · Paybill · Till")).toBe(true);
    expect(onlyNamesAndFormat("Bank: {{bank}}")).toBe(false);
    expect(onlyNamesAndFormat("Confirmations: {{count}}/{{required}}")).toBe(false);
    expect(onlyNamesAndFormat("Tilled {{x}}")).toBe(false);
  });

  for (const code of others) {
    it(`${code}: every value identical to English is a name, a unit or formatting`, () => {
      const values = readLocale(code);
      const leftovers = [...values]
        .filter(([key, value]) => value === englishFor(key))
        .filter(([key, value]) => !onlyNamesAndFormat(value) && !ALLOWED[key]?.languages.includes(code))
        .map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
      expect(leftovers).toEqual([]);
    });

    it(`${code}: HTML tags match English in every string`, () => {
      const values = readLocale(code);
      const mismatched = [...values]
        .filter(([key, value]) => {
          const theirs = englishFor(key);
          return theirs !== undefined && tags(theirs).join() !== tags(value).join();
        })
        .map(([key, value]) => `${key}: en [${tags(englishFor(key) ?? "")}] vs [${tags(value)}]`);
      expect(mismatched).toEqual([]);
    });
  }

  it("every allowlist entry is still needed (the value is still English there)", () => {
    const stale: string[] = [];
    for (const [key, { languages }] of Object.entries(ALLOWED)) {
      for (const code of languages) {
        const value = readLocale(code).get(key);
        if (value === undefined || value !== english.get(key) || onlyNamesAndFormat(value)) {
          stale.push(`${key} (${code})`);
        }
      }
    }
    expect(stale).toEqual([]);
  });
});
