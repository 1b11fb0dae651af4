import { CORRIDORS } from "#src/corridors/index.js";
import type { LanguageCode } from "#src/i18n/index.js";
import { COUNTRIES, COUNTRY_FLAGS, type Country, formatClock, isCountry } from "#src/money/index.js";

/**
 * Which clock a user reads times in (/history). Telegram does not tell a user's time zone, so the user picks one of
 * the corridors' clocks in /language; until they do, the clock of their most recent order's corridor (where they
 * last sent money, so probably where they are), else their language's country, else Nigeria (WAT).
 */
export const CLOCKS: readonly Country[] = COUNTRIES;

/**
 * One clock as the /language picker offers it, "✅ 🇰🇪 21:24 EAT": the time there now with the zone named as people
 * there name it (formatClock), in every language, so the user can match it to their watch.
 */
export function clockLabel(
  country: Country,
  view: { now: number; locale: string; current: Country },
): string {
  const mark = country === view.current ? "✅ " : "";
  return `${mark}${COUNTRY_FLAGS[country]} ${formatClock(view.now, view.locale, country)}`;
}

/** A first guess from the language alone (languages spoken mainly in one of the corridors). */
const LANGUAGE_CLOCK: Partial<Record<LanguageCode, Country>> = Object.fromEntries(
  COUNTRIES.flatMap((country) => CORRIDORS[country].languages.map((language) => [language, country])),
);

export function userClock(input: {
  chosen?: string | undefined;
  recentCorridor?: Country | undefined;
  language: LanguageCode;
}): Country {
  if (isCountry(input.chosen)) return input.chosen;
  return input.recentCorridor ?? LANGUAGE_CLOCK[input.language] ?? "NG";
}
