/** The languages we ship, each named in itself for the picker. */
export const LANGUAGES = [
  { code: "en", nativeName: "English", intl: "en-NG" },
  { code: "fr", nativeName: "Français", intl: "fr-FR" },
  { code: "es", nativeName: "Español", intl: "es-ES" },
  { code: "pcm", nativeName: "Naijá (Pidgin)", intl: "en-NG" },
  { code: "yo", nativeName: "Yorùbá", intl: "yo-NG" },
  { code: "ha", nativeName: "Hausa", intl: "ha-NG" },
  { code: "ig", nativeName: "Igbo", intl: "ig-NG" },
  { code: "sw", nativeName: "Kiswahili", intl: "sw-KE" },
  { code: "zu", nativeName: "isiZulu", intl: "zu-ZA" },
  { code: "ak", nativeName: "Twi (Akan)", intl: "ak-GH" },
] as const;

export type LanguageCode = (typeof LANGUAGES)[number]["code"];
export const DEFAULT_LANGUAGE: LanguageCode = "en";
const codes = new Set<string>(LANGUAGES.map((language) => language.code));

export function isSupportedLanguage(value: string | undefined | null): value is LanguageCode {
  return typeof value === "string" && codes.has(value);
}

/** Names of our languages that are not their code ("twi", "pidgin"…). */
const ALIASES: ReadonlyMap<string, LanguageCode> = new Map([
  ["twi", "ak"],
  ["tw", "ak"],
  ["pidgin", "pcm"],
  ["swahili", "sw"],
  ["zulu", "zu"],
]);

/**
 * Map what Telegram or the payout API says ("en-GB", "FR", "sw_KE", "twi") onto a language we ship, or undefined.
 * Case-insensitive; region suffixes are dropped. A code we ship is answered at once: this runs for every context a
 * conversation replays.
 */
export function normalizeLanguage(value: string | undefined | null): LanguageCode | undefined {
  if (!value) return undefined;
  if (codes.has(value)) return value as LanguageCode;
  const lowered = value.trim().toLowerCase().replace("_", "-");
  const base = lowered.split("-")[0] ?? "";
  const candidate = ALIASES.get(base) ?? base;
  return isSupportedLanguage(candidate) ? candidate : undefined;
}

const intlLocales = new Map<string, string>(LANGUAGES.map((entry) => [entry.code, entry.intl]));

/** The locale Intl should use for numbers, money and dates in this language (Intl may lack some; see money/). */
export function intlLocale(language: LanguageCode): string {
  return intlLocales.get(language) ?? "en-NG";
}

/**
 * Pick the language for a user: their own choice → the Telegram client's language (when we ship it) → the payout
 * account's language setting → English.
 */
export function resolveLanguage(input: {
  chosen?: string | undefined;
  telegram?: string | undefined;
  account?: string | undefined;
}): LanguageCode {
  return (
    normalizeLanguage(input.chosen) ??
    normalizeLanguage(input.telegram) ??
    normalizeLanguage(input.account) ??
    DEFAULT_LANGUAGE
  );
}
