import type { BotContext } from "#src/bot/context.js";
import { CHART_DAYS, chartDayOf, chartDays, replyWithChart } from "#src/bot/flow/chart.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import type { PaymentLinkRecord } from "#src/store/index.js";

const PAGE = 100;
/** At most this many of the newest links are read for the chart (a merchant's two weeks, with room to spare). */
const MAX_LINKS = 1_000;

/** The merchant's links created in the chart's days (newest first, read in pages until older than the chart). */
async function recentLinks(ctx: BotContext, merchantId: number, since: number): Promise<PaymentLinkRecord[]> {
  const recent: PaymentLinkRecord[] = [];
  for (let offset = 0; offset < MAX_LINKS; offset += PAGE) {
    const { links } = await ctx.deps.store.paymentLinks.listForMerchant(merchantId, offset, PAGE);
    for (const link of links) if (Date.parse(link.createdAt) >= since) recent.push(link);
    if (links.length < PAGE || links.some((link) => Date.parse(link.createdAt) < since)) break;
  }
  return recent;
}

/** /links' chart: the merchant's links per day of creation, paid (green) and not paid (red), figures in the caption. */
export async function replyLinksChart(ctx: BotContext, merchantId: number, now: number): Promise<void> {
  const { since, labels } = chartDays(now, ctx.locale);
  const paid = new Array<number>(CHART_DAYS).fill(0);
  const unpaid = new Array<number>(CHART_DAYS).fill(0);
  let paidKobo = 0;
  for (const link of await recentLinks(ctx, merchantId, since)) {
    const day = chartDayOf(since, Date.parse(link.createdAt));
    if (day === undefined) continue;
    if (link.status === "active") {
      unpaid[day] = (unpaid[day] ?? 0) + 1;
      continue;
    }
    paid[day] = (paid[day] ?? 0) + 1;
    paidKobo += link.amount;
  }
  const count = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
  const caption = ctx.t("merchant:chart.caption", {
    days: CHART_DAYS,
    paid: count(paid),
    amount: escapeHtml(formatMoney(paidKobo, "NGNKOBO", ctx.locale)),
    unpaid: count(unpaid),
  });
  await replyWithChart(
    ctx,
    {
      title: ctx.t("merchant:chart.title", { days: CHART_DAYS }),
      days: labels,
      series: [{ label: ctx.t("merchant:chart.paid"), values: paid }],
      failed: { label: ctx.t("merchant:chart.unpaid"), values: unpaid },
      emptyLabel: ctx.t("merchant:chart.none"),
    },
    caption,
    "links.png",
  );
}
