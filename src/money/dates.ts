import type { Country } from "./currencies.ts";
import { resolveNumberLocale } from "./format.ts";

/** Each corridor's clock: expiry times, receipts, prices and daily limits are shown and counted in it. */
export const COUNTRY_TIME_ZONES: Readonly<Record<Country, string>> = {
  NG: "Africa/Lagos",
  KE: "Africa/Nairobi",
  ZA: "Africa/Johannesburg",
  GH: "Africa/Accra",
};

const CLOCK: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", timeZoneName: "short" };
const DATE_TIME: Intl.DateTimeFormatOptions = { year: "numeric", month: "short", day: "numeric", ...CLOCK };

/** Building an Intl.DateTimeFormat costs ~0.5 ms and cards are rendered often: one per locale, zone and shape. */
const formats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(locale: string, country: Country, shape: "clock" | "dateTime"): Intl.DateTimeFormat {
  const key = `${locale}|${country}|${shape}`;
  let format = formats.get(key);
  if (!format) {
    const options = { ...(shape === "clock" ? CLOCK : DATE_TIME), timeZone: COUNTRY_TIME_ZONES[country] };
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

/** "21:27 WAT": the time of day in the corridor's zone, with the zone's name. */
export function formatClock(ms: number, locale: string, country: Country): string {
  return Number.isFinite(ms) ? dateFormat(locale, country, "clock").format(new Date(ms)) : "";
}

/** "1 Oct 2025, 21:24 WAT": date and time in the corridor's zone, with the zone's name. */
export function formatDateTime(ms: number, locale: string, country: Country): string {
  return Number.isFinite(ms) ? dateFormat(locale, country, "dateTime").format(new Date(ms)) : "";
}

/** "WAT", "EAT", "SAST", "GMT" (or the locale's name for the zone, "UTC+1"): the zone's name alone. */
export function zoneName(locale: string, country: Country): string {
  const parts = dateFormat(locale, country, "clock").formatToParts(new Date(0));
  return parts.find((part) => part.type === "timeZoneName")?.value ?? COUNTRY_TIME_ZONES[country];
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
const OPS_TIME_ZONE = "Africa/Lagos";

export function formatOpsTime(ms: number, locale: string): string {
  const options: Intl.DateTimeFormatOptions = {
    hour: "2-digit",
    minute: "2-digit",
    timeZone: OPS_TIME_ZONE,
    timeZoneName: "short",
  };
  try {
    return new Intl.DateTimeFormat(locale, options).format(new Date(ms));
  } catch {
    return new Intl.DateTimeFormat("en", options).format(new Date(ms));
  }
}
