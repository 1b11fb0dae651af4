import type { BotDeps } from "#src/bot/context.js";
import type { AnyAlert } from "#src/bot/rules/alert-types.js";

/** Queue an ops alert: any process (and any service, not only the alerts loop) may; the loop posts them in batches. */
export async function raiseAlert(
  deps: Pick<BotDeps, "config" | "store" | "logger">,
  alert: AnyAlert,
): Promise<void> {
  if (deps.config.admin.chatId === undefined) {
    deps.logger.warn({ alert: alert.type }, "ops alert dropped: no admin group configured");
    return;
  }
  await deps.store.alerts.enqueue(JSON.stringify(alert));
}
