import { randomBytes } from "node:crypto";
import { InlineKeyboard } from "grammy";
import type { TFunction } from "i18next";
import { ALERT_ACTIONS, alertData } from "#src/bot/ops/callback-data.js";
import type { AnyAlert } from "#src/bot/rules/alert-types.js";
import { escapeHtml } from "#src/i18n/index.js";
import { byIso, formatMoney } from "#src/money/index.js";
import type { Store } from "#src/store/index.js";

const ORDER_ID = /^[A-Za-z0-9_-]{1,48}$/;
const REF_TTL_SECONDS = 7 * 24 * 3600;

interface DeadLetterRef {
  queue: string;
  jobId: string;
}

/** Minor units of an ISO-coded wallet currency, formatted; unknown currencies as "123 USDT". */
export function formatWalletMoney(amount: number, iso: string, locale: string): string {
  const info = byIso(iso);
  return info ? formatMoney(amount, info.code, locale) : `${amount} ${iso}`;
}

export function alertLine(alert: AnyAlert, t: TFunction, locale: string): string {
  switch (alert.type) {
    case "order_failed": {
      const held = alert.previousStage === "payment_received" || alert.previousStage === "payout_sent";
      return t("admin:alerts.order_failed", {
        orderId: escapeHtml(alert.orderId),
        corridor: escapeHtml(alert.corridor),
        kind: escapeHtml(alert.kind),
        userId: alert.userId,
        reason: escapeHtml(alert.failureReason ?? "—"),
        held: held ? t("admin:alerts.funds_held") : "",
      });
    }
    case "user_unreachable":
      return t("admin:alerts.user_unreachable", { userId: alert.userId, orderId: escapeHtml(alert.orderId) });
    case "dead_letter":
      return t("admin:alerts.dead_letter", {
        queue: escapeHtml(alert.queue),
        name: escapeHtml(alert.name),
        jobId: escapeHtml(alert.jobId.slice(0, 40)),
        attempts: alert.attempts,
        reason: escapeHtml(alert.reason.slice(0, 200)),
      });
    case "webhook_signature_failed":
      return t("admin:alerts.webhook_signature_failed", { count: alert.count });
    case "payout_api_errors":
      return t("admin:alerts.payout_api_errors", {
        count: alert.count,
        minutes: Math.round(alert.windowSeconds / 60),
      });
    case "payout_api_down":
      return t("admin:alerts.payout_api_down", {
        failures: alert.failures,
        reason: escapeHtml(alert.reason),
      });
    case "low_balance":
      return t("admin:alerts.low_balance", {
        currency: escapeHtml(alert.currency),
        balance: escapeHtml(formatWalletMoney(alert.balance, alert.currency, locale)),
        threshold: escapeHtml(formatWalletMoney(alert.threshold, alert.currency, locale)),
      });
    case "refund":
      return t(alert.stuck ? "refund:ops.alert_stuck" : "refund:ops.alert", {
        orderId: escapeHtml(alert.orderId),
        userId: alert.userId,
        amount: escapeHtml(formatMoney(alert.amountSats, alert.currency ?? "BTCSAT", locale)),
        state: t(`refund:ops.state.${alert.state}`, { defaultValue: escapeHtml(alert.state) }),
      });
    case "withdrawal_update":
      return t("admin:alerts.withdrawal_update", {
        id: escapeHtml(alert.approvalId),
        tx: escapeHtml(alert.transactionId),
        status: escapeHtml(alert.status),
        amount: escapeHtml(formatWalletMoney(alert.amount, alert.currency, locale)),
      });
  }
}

/** Buttons of one alert: show / re-check the order, re-deliver its status card, retry a dead letter. */
export async function alertButtons(
  alert: AnyAlert,
  t: TFunction,
  store: Pick<Store, "alerts">,
): Promise<Array<ReturnType<typeof InlineKeyboard.text>>> {
  if ((alert.type === "order_failed" || alert.type === "user_unreachable") && ORDER_ID.test(alert.orderId)) {
    return [
      InlineKeyboard.text(
        t("admin:alerts.show_order", { orderId: alert.orderId }),
        alertData.pack({ action: ALERT_ACTIONS.showOrder, ref: alert.orderId }),
      ),
      InlineKeyboard.text(
        t("admin:alerts.recheck"),
        alertData.pack({ action: ALERT_ACTIONS.recheck, ref: alert.orderId }),
      ),
      InlineKeyboard.text(
        t("admin:alerts.redeliver"),
        alertData.pack({ action: ALERT_ACTIONS.redeliver, ref: alert.orderId }),
      ),
    ];
  }
  if (alert.type === "refund" && ORDER_ID.test(alert.orderId)) {
    return [
      InlineKeyboard.text(
        t("admin:alerts.show_order", { orderId: alert.orderId }),
        alertData.pack({ action: ALERT_ACTIONS.showOrder, ref: alert.orderId }),
      ),
    ];
  }
  if (alert.type === "dead_letter") {
    const ref = randomBytes(4).toString("hex");
    const target: DeadLetterRef = { queue: alert.queue, jobId: alert.jobId };
    await store.alerts.saveRef(ref, JSON.stringify(target), REF_TTL_SECONDS);
    return [
      InlineKeyboard.text(t("admin:alerts.retry"), alertData.pack({ action: ALERT_ACTIONS.retry, ref })),
    ];
  }
  return [];
}

export async function readDeadLetterRef(
  store: Pick<Store, "alerts">,
  ref: string,
): Promise<DeadLetterRef | undefined> {
  const raw = await store.alerts.readRef(ref);
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<DeadLetterRef>;
    return typeof parsed.queue === "string" && typeof parsed.jobId === "string"
      ? { queue: parsed.queue, jobId: parsed.jobId }
      : undefined;
  } catch {
    return undefined;
  }
}

/** "NGN:50000000,BTC:100000" → NGN → 50000000 (minor units). Bad entries are reported, not guessed. */
export function parseLowBalanceThresholds(raw: string | undefined): {
  thresholds: Map<string, number>;
  problems: string[];
} {
  const thresholds = new Map<string, number>();
  const problems: string[] = [];
  for (const part of (raw ?? "").split(/[,;\s]+/).filter(Boolean)) {
    const match = /^([A-Za-z]{3,5}):(\d+)$/.exec(part.trim());
    const amount = match ? Number(match[2]) : Number.NaN;
    if (!match?.[1] || !Number.isSafeInteger(amount)) {
      problems.push(part);
      continue;
    }
    thresholds.set(match[1].toUpperCase(), amount);
  }
  return { thresholds, problems };
}
