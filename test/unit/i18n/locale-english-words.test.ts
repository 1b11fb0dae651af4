import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LOCALES_DIR, LANGUAGES } from "#src/i18n/index.js";

/**
 * No stray English word inside a sentence of another language ("🏦 Bank wo?", "nọ́mbà account" next to
 * "àkáǹtì báńkì"). WORDS are the English words that had crept in; each is matched as a whole word, also after a
 * noun-class hyphen ("i-wallet" counts: the hyphen is isiZulu grammar, the word is still English). What may stay is
 * listed in ALLOWED with the reason.
 */
const WORDS: readonly string[] = `
  bank banks account accounts number name send amount wallet phone pay money please tap button quote quotes rate
  transfer payment payments fee fees price customer user receipt refund recipient order orders address network
  balance withdrawal invoice link links mobile status chat
`
  .trim()
  .split(/\s+/);

/** Brand and product names, written in English in every language, removed before looking for words. */
const NAMES = [
  "MTN mobile money", // MTN Ghana's product
  "mobile money", // what telcos across Africa call the service, in every language
  "Airtel Money",
  "Payout API", // the provider's service, named so on ops screens
  "business number", // Safaricom's label for a paybill number, as the M-Pesa menu prints it
  "first bank", // a Nigerian bank's name, as users type it
];

/** word → languages where it stays, and why. Stale entries fail, so the list stays as small as the truth. */
const ALLOWED: Record<string, { languages: string[]; why: string }> = {
  invoice: {
    languages: ["yo", "ha", "ig", "ak"],
    why: "Lightning's name for a payment request, the word the user's wallet shows; each file uses it throughout",
  },
  link: {
    languages: ["ak"],
    why: "Twi speakers say link for a web link and the file has no other word for it; used throughout",
  },
  links: { languages: ["ak"], why: "the plural of link above, as Twi speakers say it" },
  address: {
    languages: ["ak"],
    why: "bitcoin and Lightning addresses: Twi has no settled word, and wallets and Lightning Address say so",
  },
  network: {
    languages: ["ak"],
    why: "Ghanaians say network for a phone or bitcoin network; used throughout",
  },
  fee: { languages: ["ak"], why: "Ghanaian Twi says fee for a charge, as MoMo prompts do; used throughout" },
  chat: { languages: ["es"], why: "«chat» is a Spanish word (RAE)" },
  mobile: { languages: ["fr"], why: "« mobile » is the French word for a mobile phone" },
};

/**
 * Nigerian Pidgin is English-lexified: bank, account, money, send and tap are its words, so the list above does
 * not apply. What Pidgin must not do is mix two spellings of one word; the same holds for the other languages'
 * own spellings. variant → the spelling the file uses.
 */
const SPELLINGS: Record<string, Record<string, string>> = {
  pcm: { akaunt: "account" },
  yo: { báǹkì: "báńkì", banki: "báńkì" },
  ak: { akawnt: "akontaa" },
};
const EXEMPT = new Set(["en", "pcm"]);

type Tree = { [key: string]: string | Tree };

function values(code: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (tree: Tree, prefix: string) => {
    for (const [key, value] of Object.entries(tree)) {
      if (typeof value === "string") out.set(`${prefix}.${key}`, value);
      else walk(value, `${prefix}.${key}`);
    }
  };
  const dir = join(DEFAULT_LOCALES_DIR, code);
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".json"))) {
    walk(JSON.parse(readFileSync(join(dir, file), "utf8")) as Tree, file.replace(/\.json$/, ":"));
  }
  return out;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const wholeWords = (words: readonly string[]) =>
  new RegExp(`(?<![\\p{L}\\p{M}])(${words.map(escapeRegExp).join("|")})(?![\\p{L}\\p{M}])`, "giu");
const WORD_PATTERN = wholeWords(WORDS);
const NAME_PATTERN = wholeWords(NAMES);

/** The sentence a user reads: no placeholders, tags, code (commands, ids), nested keys, commands or e-mail examples. */
function prose(value: string): string {
  return value
    .replace(/<code>.*?<\/code>/gs, " ")
    .replace(/\{\{[^}]*\}\}|<[^>]*>|\$t\([^)]*\)|\/[a-z_]+|\S+@\S+\.\w+/g, " ")
    .replace(NAME_PATTERN, " ");
}

function englishWords(value: string): string[] {
  return [...prose(value).matchAll(WORD_PATTERN)].map((match) => match[1]!.toLowerCase());
}

const checked = LANGUAGES.map((language) => language.code).filter((code) => !EXEMPT.has(code));

describe("locales: no English word inside another language's sentence", () => {
  it("matches whole words only, after a noun-class hyphen too, and never inside names", () => {
    expect(englishWords("🏦 <b>Bank wo?</b>")).toEqual(["bank"]);
    expect(englishWords("Fi nọ́mbà account ránṣẹ́")).toEqual(["account"]);
    expect(englishWords("ku-wallet yakho")).toEqual(["wallet"]);
    expect(englishWords("Banki, akaụntụ, {{account}}, <code>/order &lt;id&gt;</code>, a@wallet.com")).toEqual(
      [],
    );
    expect(englishWords("MTN mobile money · Airtel Money · <i>first bank</i>")).toEqual([]);
  });

  for (const code of checked) {
    it(`${code}: every English word left is on the reasoned allowlist`, () => {
      const stray = [...values(code)].flatMap(([key, value]) =>
        englishWords(value)
          .filter((word) => !ALLOWED[word]?.languages.includes(code))
          .map((word) => `${key}: “${word}” in ${JSON.stringify(value)}`),
      );
      expect(stray).toEqual([]);
    });
  }

  for (const [code, variants] of Object.entries(SPELLINGS)) {
    it(`${code}: one spelling per word`, () => {
      const pattern = wholeWords(Object.keys(variants));
      const mixed = [...values(code)].flatMap(([key, value]) =>
        [...prose(value).matchAll(pattern)].map(
          (match) => `${key}: “${match[1]}” where the file writes “${variants[match[1]!.toLowerCase()]}”`,
        ),
      );
      expect(mixed).toEqual([]);
    });
  }

  it("every allowlist entry is still needed", () => {
    const stale = Object.entries(ALLOWED).flatMap(([word, { languages }]) =>
      languages
        .filter((code) => ![...values(code).values()].some((value) => englishWords(value).includes(word)))
        .map((code) => `${word} (${code})`),
    );
    expect(stale).toEqual([]);
  });
});
