import type { BotContext } from "#src/bot/context.js";
import { CHART_DAYS, chartDays, replyWithChart } from "#src/bot/flow/chart.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney, isCurrencyCode } from "#src/money/index.js";
import type { DailyCorridor } from "#src/store/index.js";

function sums(ctx: BotContext, amounts: Record<string, number>): string {
  const parts = Object.entries(amounts).map(([currency, amount]) =>
    isCurrencyCode(currency) ? formatMoney(amount, currency, ctx.locale) : `${amount} ${currency}`,
  );
  return escapeHtml(parts.join(" · ") || "—");
}

const total = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0);

/** /stats' chart: completed orders per day stacked by corridor, failed ones beside; the figures in the caption. */
export async function replyStatsChart(ctx: BotContext, now: number): Promise<void> {
  const { since, labels } = chartDays(now, ctx.locale);
  const corridors = await ctx.deps.store.stats.dailyOrders(since, CHART_DAYS);
  // Naira-funded payouts are their own series: ops see how much of the volume came in by bank transfer.
  const kind = (entry: DailyCorridor) => (entry.funding === "naira" ? "payout_naira" : entry.kind);
  const label = (entry: DailyCorridor) => `${entry.corridor} ${ctx.t(`admin:stats.kind.${kind(entry)}`)}`;
  const failed = labels.map((_, day) => total(corridors.map((entry) => entry.failed[day] ?? 0)));
  const lines = corridors.map((entry) =>
    ctx.t("admin:chart.line", {
      corridor: label(entry),
      completed: total(entry.completed),
      failed: total(entry.failed),
      paid: sums(ctx, entry.paid),
      received: sums(ctx, entry.received),
    }),
  );
  const caption = [
    ctx.t("admin:chart.caption", { days: CHART_DAYS }),
    ...(lines.length > 0 ? lines : [ctx.t("admin:chart.none")]),
  ].join("\n");
  await replyWithChart(
    ctx,
    {
      title: ctx.t("admin:chart.title", { days: CHART_DAYS }),
      days: labels,
      series: corridors.map((entry) => ({ label: label(entry), values: entry.completed })),
      failed: { label: ctx.t("admin:chart.failed"), values: failed },
      emptyLabel: ctx.t("admin:chart.none"),
    },
    caption.slice(0, 1024),
    "stats.png",
  );
}
