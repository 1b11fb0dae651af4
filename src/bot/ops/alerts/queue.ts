import type { BotDeps } from "../../context.ts";
import type { AnyAlert } from "../../rules/alert-types.ts";

/**
 * The ops alert queue in Redis: any process (and any service, not only the alerts loop) may add to it; the alerts
 * loop posts it to the admin group in batches.
 */
export const ALERT_QUEUE_KEY = "ops:alerts:queue";
const QUEUE_CAP = 500;

export async function raiseAlert(
  deps: Pick<BotDeps, "config" | "redis" | "logger">,
  alert: AnyAlert,
): Promise<void> {
  if (deps.config.admin.chatId === undefined) {
    deps.logger.warn({ alert: alert.type }, "ops alert dropped: no admin group configured");
    return;
  }
  await deps.redis
    .multi()
    .rpush(ALERT_QUEUE_KEY, JSON.stringify(alert))
    .ltrim(ALERT_QUEUE_KEY, -QUEUE_CAP, -1)
    .exec();
}
