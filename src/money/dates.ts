import { CORRIDORS, COUNTRIES, type CorridorTimeZone, type Country } from "#src/corridors/index.js";
import { resolveNumberLocale } from "./format.ts";

/** Each corridor's clock (src/corridors): expiry times, receipts, prices and daily limits are shown and counted in it. */
type TimeZone = CorridorTimeZone;

export const COUNTRY_TIME_ZONES: Readonly<Record<Country, TimeZone>> = Object.fromEntries(
  COUNTRIES.map((country) => [country, CORRIDORS[country].timeZone]),
) as Record<Country, TimeZone>;

/**
 * Each zone as the people who live in it name it, the same in every language. Intl's short names are offsets
 * outside English ("WAT+3" in Yorùbá, "GMT +3" in Kiswahili, "UTC+2" in French), so they are never used. None of
 * these zones keeps daylight saving time, so one name holds all year.
 */
const ZONE_ABBREVIATIONS: Readonly<Record<TimeZone, string>> = Object.fromEntries(
  COUNTRIES.map((country) => [CORRIDORS[country].timeZone, CORRIDORS[country].zoneName]),
) as Record<TimeZone, string>;

/** A 24-hour clock in every language: a 12-hour one adds day periods few readers know ("ANW" in Akan). */
const CLOCK: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
const DATE_TIME: Intl.DateTimeFormatOptions = { year: "numeric", month: "short", day: "numeric", ...CLOCK };
type Shape = "clock" | "dateTime";

/** Building an Intl.DateTimeFormat costs ~0.5 ms and cards are rendered often: one per locale, zone and shape. */
const formats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(locale: string, zone: TimeZone, shape: Shape): Intl.DateTimeFormat {
  const key = `${locale}|${zone}|${shape}`;
  let format = formats.get(key);
  if (!format) {
    const options = { ...(shape === "clock" ? CLOCK : DATE_TIME), timeZone: zone };
    try {
      format = new Intl.DateTimeFormat(resolveNumberLocale(locale), options);
    } catch {
      // A tag this Node's ICU does not know: English rather than a crash.
      format = new Intl.DateTimeFormat("en", options);
    }
    formats.set(key, format);
  }
  return format;
}

/** Every time shown with its zone goes through here: the locale's digits and date, then our name for the zone. */
function formatZoned(ms: number, locale: string, zone: TimeZone, shape: Shape): string {
  if (!Number.isFinite(ms)) return "";
  return `${dateFormat(locale, zone, shape).format(new Date(ms))} ${ZONE_ABBREVIATIONS[zone]}`;
}

/** "21:27 WAT": the time of day in the corridor's zone, with the zone's name. */
export function formatClock(ms: number, locale: string, country: Country): string {
  return formatZoned(ms, locale, COUNTRY_TIME_ZONES[country], "clock");
}

/** "1 Oct 2025, 21:24 WAT": date and time in the corridor's zone, with the zone's name. */
export function formatDateTime(ms: number, locale: string, country: Country): string {
  return formatZoned(ms, locale, COUNTRY_TIME_ZONES[country], "dateTime");
}

/** "WAT", "EAT", "SAST", "GMT": the corridor's zone by name alone, in every language. */
export function zoneName(country: Country): string {
  return ZONE_ABBREVIATIONS[COUNTRY_TIME_ZONES[country]];
}

const dayFormats = new Map<Country, Intl.DateTimeFormat>();

/** The calendar day ("2026-11-22") of an instant in the corridor's zone. */
export function localDay(ms: number, country: Country): string {
  let format = dayFormats.get(country);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", { timeZone: COUNTRY_TIME_ZONES[country] });
    dayFormats.set(country, format);
  }
  return format.format(new Date(ms));
}

/** Treasury and the ops team work on Lagos time. */
const OPS_TIME_ZONE: TimeZone = "Africa/Lagos";

export function formatOpsTime(ms: number, locale: string): string {
  return formatZoned(ms, locale, OPS_TIME_ZONE, "clock");
}
