/**
 * The calendar of a repeat send, pure. A repeat counts from its anchor: the local calendar day it was set up, in
 * the user's clock (an IANA zone). Occurrence n (n ≥ 1) falls n weeks or n months after the anchor, at
 * `DUE_HOUR`:00 local time. A monthly repeat keeps its anchor's day of the month and falls on the month's last day
 * when the month is shorter (set up on 31 January: 28/29 February, 31 March, 30 April…), so it never drifts.
 */
export type Cadence = "week" | "month";

export interface Schedule {
  cadence: Cadence;
  /** "YYYY-MM-DD": the local day the repeat counts from (occurrence 0, never sent). */
  anchor: string;
  /** IANA time zone of the user's clock. */
  zone: string;
}

/** The local hour a due card is sent at: morning, not midnight. */
const DUE_HOUR = 9;
/** No schedule is walked further than this many occurrences in one call (about 190 years of weeks). */
const MAX_STEPS = 10_000;

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDay(day: string): { year: number; month: number; date: number } {
  const match = DAY_PATTERN.exec(day);
  if (!match) throw new RangeError(`not a calendar day: ${day.slice(0, 12)}`);
  return { year: Number(match[1]), month: Number(match[2]), date: Number(match[3]) };
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");
const formatDay = (utcMs: number) => {
  const at = new Date(utcMs);
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
};

/** Days in a month (month 1–12). */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The local calendar day of occurrence `n`. */
export function occurrenceDay(schedule: Pick<Schedule, "cadence" | "anchor">, n: number): string {
  const { year, month, date } = parseDay(schedule.anchor);
  if (schedule.cadence === "week") return formatDay(Date.UTC(year, month - 1, date) + n * 7 * DAY_MS);
  const months = month - 1 + n;
  const targetYear = year + Math.floor(months / 12);
  const targetMonth = (((months % 12) + 12) % 12) + 1;
  return `${pad(targetYear, 4)}-${pad(targetMonth)}-${pad(Math.min(date, daysInMonth(targetYear, targetMonth)))}`;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at an instant (ms; +3 h for Nairobi). */
function zoneOffset(ms: number, zone: string): number {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    offsetFormats.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(ms))) parts[part.type] = Number(part.value);
  const local = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return local - Math.floor(ms / 1000) * 1000;
}

/** The instant a local wall-clock time happens in `zone` (corrected twice, so a DST change in between is right). */
export function zonedInstant(day: string, hour: number, zone: string): number {
  const { year, month, date } = parseDay(day);
  const wall = Date.UTC(year, month - 1, date, hour);
  const first = wall - zoneOffset(wall, zone);
  return wall - zoneOffset(first, zone);
}

/** The local calendar day of an instant in `zone`. */
export function dayIn(ms: number, zone: string): string {
  return formatDay(ms + zoneOffset(ms, zone));
}

/** When occurrence `n` is due. */
export function dueAt(schedule: Schedule, n: number): number {
  return zonedInstant(occurrenceDay(schedule, n), DUE_HOUR, schedule.zone);
}

/** The first occurrence, from `from` on, that is still in the future at `now`. */
export function firstAfter(schedule: Schedule, now: number, from: number): number {
  let n = Math.max(1, from);
  for (let step = 0; step < MAX_STEPS && dueAt(schedule, n) <= now; step += 1) n += 1;
  return n;
}

/**
 * What the due job does with a repeat whose next occurrence is `next`: nothing (`undefined`, not due yet), or
 * send ONE card for the latest occurrence already due at `now` and move on to the first one still ahead. The
 * occurrences in between were missed (the bot was down, or the clock jumped) and are dropped, never piled up.
 */
export function catchUp(
  schedule: Schedule,
  next: number,
  now: number,
): { send: number; missed: number; next: number } | undefined {
  if (dueAt(schedule, next) > now) return undefined;
  const following = firstAfter(schedule, now, next + 1);
  const send = following - 1;
  return { send, missed: send - next, next: following };
}
