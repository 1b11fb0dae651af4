import type { BotDeps } from "#src/bot/context.js";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { type Country, formatClock } from "#src/money/index.js";

/**
 * The user's quote budget (store/quote-budget.ts) as the flows use it: taken inside the quote's runOnce, before the
 * payout API is asked, for every way a quote is made (the payout flow's amount, Refresh, New quote, repeat sends,
 * money requests, buys). A spent budget throws QuoteBudgetExceeded and nothing is asked for.
 */
export function reserveQuote(
  deps: Pick<BotDeps, "store" | "config" | "now">,
  userId: number,
  action: string,
): Promise<void> {
  return deps.store.quoteBudget.reserve(userId, action, deps.now(), deps.config.quoteBudget);
}

/**
 * "No new quote before 14:35 WAT": in the corridor's clock, as the quote card's expiry is shown (src/money/dates.ts),
 * rounded up to the minute so the time shown is never a moment too early.
 */
export function quoteBudgetText(t: TFunction, locale: string, country: Country, retryAtMs: number): string {
  const minute = Math.ceil(retryAtMs / 60_000) * 60_000;
  return t("quote:budget", { time: escapeHtml(formatClock(minute, locale, country)) });
}
