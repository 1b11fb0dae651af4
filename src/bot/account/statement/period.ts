import { COUNTRY_TIME_ZONES, type Country } from "#src/money/index.js";
import type { StatementRange } from "#src/store/index.js";

/** The periods a statement covers, on the user's clock (the zone /history shows times in). */
export const STATEMENT_PERIODS = ["this_month", "last_month", "last_3_months", "this_year", "all"] as const;
export type StatementPeriod = (typeof STATEMENT_PERIODS)[number];

const wallFormats = new Map<Country, Intl.DateTimeFormat>();

/** The clock's wall time at `ms` as if it were UTC (so the UTC getters read the clock's date and time). */
function wallTime(ms: number, clock: Country): Date {
  let format = wallFormats.get(clock);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: COUNTRY_TIME_ZONES[clock],
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    wallFormats.set(clock, format);
  }
  const part: Record<string, number> = {};
  for (const { type, value } of format.formatToParts(new Date(ms))) part[type] = Number(value);
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return new Date(wall + (((ms % 1000) + 1000) % 1000));
}

/** How far the clock is ahead of UTC at `ms` (the corridors' zones keep no daylight saving: one offset all year). */
function offsetMs(ms: number, clock: Country): number {
  return wallTime(ms, clock).getTime() - ms;
}

/** "2026-11-28" and "07:18": an instant's date and time on the clock, in the forms spreadsheets read. */
export function clockDateTime(ms: number, clock: Country): { date: string; time: string } {
  const iso = wallTime(ms, clock).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

/** The instant the clock reads midnight starting the given month (`month` may run past either end of a year). */
function monthStart(year: number, month: number, offset: number): number {
  return Date.UTC(year, month, 1) - offset;
}

/** The creation times a period covers on the clock, up to `nowMs` (orders made after the press are left out). */
export function periodRange(period: StatementPeriod, nowMs: number, clock: Country): StatementRange {
  const offset = offsetMs(nowMs, clock);
  const wall = new Date(nowMs + offset);
  const year = wall.getUTCFullYear();
  const month = wall.getUTCMonth();
  const toMs = nowMs + 1;
  switch (period) {
    case "this_month":
      return { fromMs: monthStart(year, month, offset), toMs };
    case "last_month":
      return { fromMs: monthStart(year, month - 1, offset), toMs: monthStart(year, month, offset) };
    case "last_3_months":
      return { fromMs: monthStart(year, month - 2, offset), toMs };
    case "this_year":
      return { fromMs: monthStart(year, 0, offset), toMs };
    case "all":
      return { fromMs: 0, toMs };
  }
}

/** "orders-2026-11.csv", "orders-2026-09-2026-11.csv", "orders-2026.csv", "orders-until-2026-11-28.csv". */
export function statementFileName(period: StatementPeriod, range: StatementRange, clock: Country): string {
  const first = clockDateTime(range.fromMs, clock).date;
  const last = clockDateTime(range.toMs - 1, clock).date;
  switch (period) {
    case "this_month":
    case "last_month":
      return `orders-${first.slice(0, 7)}.csv`;
    case "last_3_months":
      return `orders-${first.slice(0, 7)}-${last.slice(0, 7)}.csv`;
    case "this_year":
      return `orders-${first.slice(0, 4)}.csv`;
    case "all":
      return `orders-until-${last}.csv`;
  }
}
