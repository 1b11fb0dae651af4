import { InputFile } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { type DailyBarsInput, renderDailyBars } from "#src/charts/daily-bars.js";

/** The charts cover the last 14 days, today (UTC) included. */
export const CHART_DAYS = 14;
const DAY_MS = 24 * 3600 * 1000;

/** Midnight UTC of the chart's first day, and one short label per day in the reader's locale. */
export function chartDays(now: number, locale: string): { since: number; labels: string[] } {
  const today = new Date(now);
  today.setUTCHours(0, 0, 0, 0);
  const since = today.getTime() - (CHART_DAYS - 1) * DAY_MS;
  const format = new Intl.DateTimeFormat(locale, { day: "numeric", month: "numeric", timeZone: "UTC" });
  const labels = Array.from({ length: CHART_DAYS }, (_, day) => format.format(since + day * DAY_MS));
  return { since, labels };
}

/** Which chart-day a time falls on, or undefined outside the chart. */
export function chartDayOf(since: number, at: number): number | undefined {
  const day = Math.floor((at - since) / DAY_MS);
  return day >= 0 && day < CHART_DAYS ? day : undefined;
}

/** Send the chart as a photo; the caption carries the same figures as text (Telegram HTML, ≤ 1024). */
export async function replyWithChart(
  ctx: BotContext,
  chart: DailyBarsInput,
  caption: string,
  filename: string,
): Promise<void> {
  const png = await renderDailyBars(chart);
  await ctx.replyWithPhoto(new InputFile(png, filename), { caption, parse_mode: "HTML" });
}
