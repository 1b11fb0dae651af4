import type { LanguageCode } from "#src/i18n/index.js";
import { COUNTRIES, type Country, isCountry } from "#src/money/index.js";

/**
 * Which clock a user reads times in (/history). Telegram does not tell a user's time zone, so the user picks one of
 * the corridors' clocks in /language; until they do, the clock of their most recent order's corridor (where they
 * last sent money, so probably where they are), else their language's country, else Nigeria (WAT).
 */
export const CLOCKS: readonly Country[] = COUNTRIES;

/** A first guess from the language alone (languages spoken mainly in one of the corridors). */
const LANGUAGE_CLOCK: Partial<Record<LanguageCode, Country>> = { sw: "KE", zu: "ZA", ak: "GH" };

export function userClock(input: {
  chosen?: string | undefined;
  recentCorridor?: Country | undefined;
  language: LanguageCode;
}): Country {
  if (isCountry(input.chosen)) return input.chosen;
  return input.recentCorridor ?? LANGUAGE_CLOCK[input.language] ?? "NG";
}
