import { type Api, InlineKeyboard } from "grammy";
import type { PayoutApi } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { readBackRefund, syncRefundFromApproval } from "#src/bot/ops/refund/settlement.js";
import { namesFor, renderApprovalCard } from "#src/bot/ops/treasury/card.js";
import { expireApprovals } from "#src/bot/ops/treasury/treasury.js";
import type { AnyAlert } from "#src/bot/rules/alert-types.js";
import type { OpsAlert } from "#src/events/index.js";
import type { RawRequestHandler } from "#src/http/server.js";
import { intlLocale, resolveLanguage } from "#src/i18n/index.js";
import type { Metrics } from "#src/metrics.js";
import { raiseAlert } from "./queue.ts";
import { alertButtons, alertLine, parseLowBalanceThresholds } from "./render.ts";

/**
 * Ops alerts in the admin group. Alerts are queued in Redis (any process may raise them) and posted in batches —
 * at most `maxPerMessage` alerts per message, one message per `flushEveryMs` across all processes — so a burst
 * never trips the group's ~20 messages/minute limit. A periodic check (one process at a time) adds low-balance,
 * payout-API and webhook-signature alerts and expires treasury requests nobody approved.
 */

interface AlertsDeps extends Pick<BotDeps, "config" | "logger" | "store" | "translator"> {
  api: Pick<PayoutApi, "getWallets" | "ping" | "withdrawBtc" | "getTransactions">;
  /** grammY Api with the process's throttler and auto-retry. */
  telegram: Api;
  accountLanguage?: BotDeps["accountLanguage"];
  /** When given, payout API errors counted there raise an alert above `apiErrorThreshold` per check. */
  metrics?: Pick<Metrics, "payoutApiErrors">;
  flushEveryMs?: number;
  checkEveryMs?: number;
  maxPerMessage?: number;
  apiErrorThreshold?: number;
  now?: () => number;
}

const LOW_BALANCE_REPEAT_SECONDS = 6 * 3600;
const API_DOWN_REPEAT_SECONDS = 30 * 60;
const API_DOWN_AFTER_FAILURES = 3;
const FORGED_WINDOW_SECONDS = 5 * 60;
const REFUND_STUCK_MS = 10 * 60_000;
const REFUND_STUCK_REPEAT_SECONDS = 6 * 3600;
const NOT_TROUBLE = new Set(["not_found", "validation"]);

export interface Alerts {
  /** The events pipeline's onAlert hook. */
  onAlert(alert: OpsAlert): Promise<void>;
  raise(alert: AnyAlert): Promise<void>;
  /** Wrap the payout webhook handler: remembers the last authentic delivery, alerts on bad signatures. */
  tapWebhook(handler: RawRequestHandler): RawRequestHandler;
  /** Post queued alerts now (returns how many were posted). */
  flush(): Promise<number>;
  /** Run the periodic checks now. */
  check(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export function createAlerts(deps: AlertsDeps): Alerts {
  const logger = deps.logger.child({ module: "alerts" });
  const now = deps.now ?? Date.now;
  const flushEveryMs = deps.flushEveryMs ?? 5_000;
  const checkEveryMs = deps.checkEveryMs ?? 60_000;
  const maxPerMessage = deps.maxPerMessage ?? 10;
  const { thresholds, problems } = parseLowBalanceThresholds(deps.config.lowBalanceAlerts);
  if (problems.length > 0)
    logger.warn({ entries: problems }, "LOW_BALANCE_ALERTS entries ignored (CUR:minor)");
  const timers: NodeJS.Timeout[] = [];
  let lastApiErrorTotal: number | undefined;

  const view = () => {
    const language = resolveLanguage({ account: deps.accountLanguage?.value });
    return { t: deps.translator.t(language), locale: intlLocale(language) };
  };

  const raise = (alert: AnyAlert) => raiseAlert({ ...deps, logger }, alert);

  async function flush(): Promise<number> {
    const chatId = deps.config.admin.chatId;
    if (chatId === undefined) return 0;
    if (!(await deps.store.alerts.claimFlush(Math.max(1_000, flushEveryMs - 100)))) return 0;
    const raws = await deps.store.alerts.take(maxPerMessage);
    if (raws.length === 0) return 0;
    const alerts = raws.flatMap((raw) => {
      try {
        return [JSON.parse(raw) as AnyAlert];
      } catch {
        return [];
      }
    });
    const { t, locale } = view();
    const lines: string[] = [];
    const keyboard = new InlineKeyboard();
    for (const alert of alerts) {
      lines.push(alertLine(alert, t, locale));
      const buttons = await alertButtons(alert, t, deps.store);
      if (buttons.length > 0) keyboard.row(...buttons);
    }
    const header = t("admin:alerts.header", { count: alerts.length });
    const text = `${header}\n\n${lines.join("\n\n")}`.slice(0, 4000);
    try {
      await deps.telegram.sendMessage(chatId, text, {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(keyboard.inline_keyboard.length > 0 ? { reply_markup: keyboard } : {}),
      });
      return alerts.length;
    } catch (error) {
      // Put them back in front for the next flush; never lose an alert to a Telegram hiccup.
      await deps.store.alerts.putBack(raws);
      logger.error({ err: error }, "could not post ops alerts");
      return 0;
    }
  }

  async function checkBalances(): Promise<void> {
    if (thresholds.size === 0) return;
    const wallets = await deps.api.getWallets();
    for (const wallet of wallets) {
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
    if (!deps.metrics) return;
    const metric = await deps.metrics.payoutApiErrors.get();
    // Answers about one request (404 while an order is fresh, a refused field) are not API trouble.
    const total = metric.values
      .filter((value) => !NOT_TROUBLE.has(String(value.labels.kind)))
      .reduce((sum, value) => sum + value.value, 0);
    const previous = lastApiErrorTotal;
    lastApiErrorTotal = total;
    const delta = previous === undefined ? 0 : total - previous;
    if (delta >= (deps.apiErrorThreshold ?? 10)) {
      await raise({ type: "payout_api_errors", count: delta, windowSeconds: checkEveryMs / 1000, at: iso() });
    }
  }

  async function sweepApprovals(): Promise<void> {
    const expired = await expireApprovals(deps, now());
    if (expired.length === 0) return;
    const cardView = view();
    for (const record of expired) {
      if (record.payload.kind === "refund") {
        await syncRefundFromApproval(
          { ...deps, accountLanguage: deps.accountLanguage ?? { value: undefined } },
          deps.telegram,
          record,
        );
      }
      if (record.messageId === undefined) continue;
      const names = await namesFor(deps.store.users, [record.requestedBy]);
      const card = renderApprovalCard(record, cardView, names);
      await deps.telegram
        .editMessageText(record.chatId, record.messageId, card.text, { parse_mode: "HTML" })
        .catch((error: unknown) =>
          logger.warn({ err: error, approvalId: record.id }, "could not mark expiry"),
        );
    }
  }

  /**
   * Refunds sent or uncertain are read back from the API (a lost webhook, an uncertain answer); those still open
   * (awaiting approval, paying, sent, uncertain) after REFUND_STUCK_MS are told to ops once.
   */
  async function checkRefunds(): Promise<void> {
    const refundDeps = { ...deps, accountLanguage: deps.accountLanguage ?? { value: undefined } };
    for (const refund of await deps.store.refunds.listOpen()) {
      await readBackRefund(refundDeps, deps.telegram, refund).catch((error: unknown) =>
        logger.warn({ err: error, orderId: refund.orderId }, "refund read-back failed"),
      );
    }
    for (const refund of await deps.store.refunds.listOpen(now() - REFUND_STUCK_MS)) {
      if (!(await deps.store.alerts.claimRefundStuck(refund.orderId, REFUND_STUCK_REPEAT_SECONDS))) continue;
      await raise({
        type: "refund",
        orderId: refund.orderId,
        userId: refund.userId,
        state: refund.state,
        amountSats: refund.amountSats,
        stuck: true,
        at: iso(),
      });
    }
  }

  async function check(): Promise<void> {
    if (!(await deps.store.alerts.claimCheck(Math.max(1_000, checkEveryMs - 500)))) return;
    for (const [name, task] of [
      ["balances", checkBalances],
      ["api", checkApi],
      ["approvals", sweepApprovals],
      ["refunds", checkRefunds],
    ] as const) {
      await task().catch((error: unknown) => logger.warn({ err: error, check: name }, "ops check failed"));
    }
  }

  const iso = () => new Date(now()).toISOString();

  return {
    onAlert: (alert) => raise(alert),
    raise,
    flush,
    check,

    tapWebhook(handler) {
      return async (request) => {
        const response = await handler(request);
        try {
          // Only a delivery that proved its sender: an unsigned ping is answered 200 too, by anyone's hand.
          if (response.authentic && response.status >= 200 && response.status < 300) {
            await deps.store.alerts.recordWebhook(iso());
          } else if (response.status === 401) {
            const count = await deps.store.alerts.countForged(FORGED_WINDOW_SECONDS);
            if (count === 1) {
              await raise({ type: "webhook_signature_failed", count, at: iso() });
            }
          }
        } catch (error) {
          logger.warn({ err: error }, "webhook tap bookkeeping failed");
        }
        return response;
      };
    },

    start() {
      if (timers.length > 0) return;
      const every = (ms: number, task: () => Promise<unknown>) => {
        const timer = setInterval(() => {
          task().catch((error: unknown) => logger.warn({ err: error }, "ops timer task failed"));
        }, ms);
        timer.unref();
        timers.push(timer);
      };
      every(flushEveryMs, flush);
      every(checkEveryMs, check);
    },

    async stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
      await deps.store.alerts.releaseFlush().catch(() => undefined);
      await flush().catch((error: unknown) => logger.warn({ err: error }, "final alert flush failed"));
    },
  };
}

/** When the payout webhook last got a 2xx answer (ISO), as recorded by tapWebhook. */
