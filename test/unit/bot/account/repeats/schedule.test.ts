import { describe, expect, it } from "vitest";
import {
  catchUp,
  dayIn,
  dueAt,
  firstAfter,
  occurrenceDay,
  type Schedule,
  zonedInstant,
} from "#src/bot/account/repeats/schedule.js";

const monthly = (anchor: string, zone = "Africa/Lagos"): Schedule => ({ cadence: "month", anchor, zone });
const weekly = (anchor: string, zone = "Africa/Lagos"): Schedule => ({ cadence: "week", anchor, zone });
const days = (schedule: Schedule, count: number) =>
  Array.from({ length: count }, (_, index) => occurrenceDay(schedule, index + 1));

describe("repeat schedule: the calendar", () => {
  it("a monthly repeat from 31 January falls on each month's last day when it is shorter, and never drifts", () => {
    expect(days(monthly("2026-01-31"), 6)).toEqual([
      "2026-02-28",
      "2026-03-31",
      "2026-04-30",
      "2026-05-31",
      "2026-06-30",
      "2026-07-31",
    ]);
    // A leap year's February.
    expect(occurrenceDay(monthly("2028-01-31"), 1)).toBe("2028-02-29");
    expect(occurrenceDay(monthly("2028-01-30"), 1)).toBe("2028-02-29");
    expect(occurrenceDay(monthly("2027-01-29"), 1)).toBe("2027-02-28");
  });

  it("crosses the year end, and counts from the anchor (not from the previous, shortened date)", () => {
    expect(days(monthly("2026-11-30"), 4)).toEqual(["2026-12-30", "2027-01-30", "2027-02-28", "2027-03-30"]);
    expect(occurrenceDay(monthly("2026-12-15"), 25)).toBe("2029-01-15");
  });

  it("a weekly repeat is every seven days, across month and year ends", () => {
    expect(days(weekly("2026-12-24"), 3)).toEqual(["2026-12-31", "2027-01-07", "2027-01-14"]);
    expect(occurrenceDay(weekly("2028-02-22"), 1)).toBe("2028-02-29");
  });
});

describe("repeat schedule: the user's clock", () => {
  it("is due at 09:00 on the local day, in each corridor's zone", () => {
    const anchor = "2026-11-24";
    expect(new Date(dueAt(monthly(anchor, "Africa/Lagos"), 1)).toISOString()).toBe(
      "2026-12-24T08:00:00.000Z",
    );
    expect(new Date(dueAt(monthly(anchor, "Africa/Nairobi"), 1)).toISOString()).toBe(
      "2026-12-24T06:00:00.000Z",
    );
    expect(new Date(dueAt(monthly(anchor, "Africa/Johannesburg"), 1)).toISOString()).toBe(
      "2026-12-24T07:00:00.000Z",
    );
    expect(new Date(dueAt(monthly(anchor, "Africa/Accra"), 1)).toISOString()).toBe(
      "2026-12-24T09:00:00.000Z",
    );
  });

  it("keeps 09:00 local across a daylight-saving change, and reads the local day of an instant", () => {
    // London moves to summer time on 29 March 2026: 09:00 is 09:00 GMT before and 08:00 UTC after.
    const london = weekly("2026-03-20", "Europe/London");
    expect(new Date(dueAt(london, 1)).toISOString()).toBe("2026-03-27T09:00:00.000Z");
    expect(new Date(dueAt(london, 2)).toISOString()).toBe("2026-04-03T08:00:00.000Z");
    expect(zonedInstant("2026-07-01", 9, "Europe/London")).toBe(Date.parse("2026-07-01T08:00:00Z"));
    // 23:30 UTC on 31 Dec is already 1 January in Nairobi, still 31 December in Accra.
    const late = Date.parse("2026-12-31T23:30:00Z");
    expect(dayIn(late, "Africa/Nairobi")).toBe("2027-01-01");
    expect(dayIn(late, "Africa/Accra")).toBe("2026-12-31");
  });
});

describe("repeat schedule: no pile-up", () => {
  const schedule = monthly("2026-01-31");

  it("is not due before its time, and due at it", () => {
    const due = dueAt(schedule, 1);
    expect(catchUp(schedule, 1, due - 1)).toBeUndefined();
    expect(catchUp(schedule, 1, due)).toEqual({ send: 1, missed: 0, next: 2 });
  });

  it("several periods late: one card for the latest due occurrence, and the next one is in the future", () => {
    // The bot was down from February to mid-June: February, March, April and May were due; one card, for May.
    const now = Date.parse("2026-06-15T12:00:00Z");
    const result = catchUp(schedule, 1, now);
    expect(result).toEqual({ send: 4, missed: 3, next: 5 });
    expect(occurrenceDay(schedule, 4)).toBe("2026-05-31");
    expect(occurrenceDay(schedule, 5)).toBe("2026-06-30");
    // Caught up: nothing more until 30 June.
    expect(catchUp(schedule, 5, now)).toBeUndefined();
  });

  it("the next occurrence after catching up is always ahead of now, the sent one never is", () => {
    const zones = ["Africa/Lagos", "Africa/Nairobi", "Africa/Johannesburg", "Africa/Accra"];
    for (const zone of zones) {
      for (const cadence of ["week", "month"] as const) {
        const repeat: Schedule = { cadence, anchor: "2026-01-31", zone };
        for (let hours = 0; hours < 24 * 400; hours += 97) {
          const now = Date.parse("2026-02-01T00:00:00Z") + hours * 3_600_000;
          const result = catchUp(repeat, 1, now);
          if (!result) {
            expect(dueAt(repeat, 1)).toBeGreaterThan(now);
            continue;
          }
          expect(dueAt(repeat, result.send)).toBeLessThanOrEqual(now);
          expect(dueAt(repeat, result.next)).toBeGreaterThan(now);
          expect(result.next).toBe(result.send + 1);
          expect(firstAfter(repeat, now, 1)).toBe(result.next);
        }
      }
    }
  });
});
