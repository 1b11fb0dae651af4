import type { FeatureRuntime } from "#src/bot/flow/feature.js";
import { namesFor, renderApprovalCard } from "#src/bot/rules/approval-card.js";
import { expireApprovals } from "#src/bot/rules/treasury.js";
import type { Logger } from "#src/log/logger.js";
import { opsView } from "./post.ts";
import { parseLowBalanceThresholds } from "./render.ts";

const LOW_BALANCE_REPEAT_SECONDS = 6 * 3600;
const API_DOWN_REPEAT_SECONDS = 30 * 60;
const API_DOWN_AFTER_FAILURES = 3;
const NOT_TROUBLE = new Set(["not_found", "validation"]);

interface CheckOptions {
  checkEveryMs: number;
  /** Payout API errors counted above this per check raise an alert (default 10). */
  apiErrorThreshold?: number;
  logger: Logger;
}

/**
 * The periodic ops check, one process at a time: low balances, the payout API's health and error rate, treasury
 * requests nobody approved in time, then every feature's own part (the refunds' read-back).
 */
export function opsCheck(runtime: FeatureRuntime, options: CheckOptions): () => Promise<void> {
  const { deps, raise } = runtime;
  const { thresholds, problems } = parseLowBalanceThresholds(deps.config.lowBalanceAlerts);
  if (problems.length > 0)
    options.logger.warn({ entries: problems }, "LOW_BALANCE_ALERTS entries ignored (CUR:minor)");
  const iso = () => new Date(deps.now()).toISOString();
  let lastApiErrorTotal: number | undefined;

  async function checkBalances(): Promise<void> {
    if (thresholds.size === 0) return;
    for (const wallet of await deps.api.getWallets()) {
      const currency = wallet.currency.toUpperCase();
      const threshold = thresholds.get(currency);
      if (threshold === undefined) continue;
      if (wallet.balance >= threshold) {
        await deps.store.alerts.clearLowBalance(currency);
        continue;
      }
      if (!(await deps.store.alerts.claimLowBalance(currency, LOW_BALANCE_REPEAT_SECONDS))) continue;
      await raise({ type: "low_balance", currency, balance: wallet.balance, threshold, at: iso() });
    }
  }

  async function checkApi(): Promise<void> {
    try {
      await deps.api.ping();
      await deps.store.alerts.clearApiFailures();
    } catch (error) {
      const failures = await deps.store.alerts.countApiFailure();
      if (failures >= API_DOWN_AFTER_FAILURES) {
        const fresh = await deps.store.alerts.claimApiDown(API_DOWN_REPEAT_SECONDS);
        const reason = error instanceof Error ? error.message.slice(0, 200) : "unknown";
        if (fresh) await raise({ type: "payout_api_down", failures, reason, at: iso() });
      }
    }
    const metric = await runtime.metrics.payoutApiErrors.get();
    // Answers about one request (404 while an order is fresh, a refused field) are not API trouble.
    const total = metric.values
      .filter((value) => !NOT_TROUBLE.has(String(value.labels.kind)))
      .reduce((sum, value) => sum + value.value, 0);
    const previous = lastApiErrorTotal;
    lastApiErrorTotal = total;
    const delta = previous === undefined ? 0 : total - previous;
    if (delta >= (options.apiErrorThreshold ?? 10)) {
      const windowSeconds = options.checkEveryMs / 1000;
      await raise({ type: "payout_api_errors", count: delta, windowSeconds, at: iso() });
    }
  }

  const checks = () => [
    { name: "balances", run: checkBalances },
    { name: "api", run: checkApi },
    { name: "approvals", run: () => sweepApprovals(runtime, options.logger) },
    ...runtime.opsChecks(),
  ];
  return async () => {
    if (!(await deps.store.alerts.claimCheck(Math.max(1_000, options.checkEveryMs - 500)))) return;
    for (const { name, run } of checks()) {
      await run().catch((error: unknown) =>
        options.logger.warn({ err: error, check: name }, "ops check failed"),
      );
    }
  };
}

/** Expire treasury requests nobody approved in time; the product that opened one follows, its card says so. */
async function sweepApprovals(runtime: FeatureRuntime, logger: Logger): Promise<void> {
  const { deps, telegram } = runtime;
  const expired = await expireApprovals(deps, deps.now());
  if (expired.length === 0) return;
  const cardView = opsView(deps);
  for (const record of expired) {
    await runtime.approvalChanged(record);
    if (record.messageId === undefined) continue;
    const names = await namesFor(deps.store.users, [record.requestedBy]);
    const card = renderApprovalCard(record, cardView, names);
    await telegram
      .editMessageText(record.chatId, record.messageId, card.text, { parse_mode: "HTML" })
      .catch((error: unknown) => logger.warn({ err: error, approvalId: record.id }, "could not mark expiry"));
  }
}
