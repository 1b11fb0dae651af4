import type { BotDeps } from "#src/bot/context.js";

/**
 * Reasons stored on an unconfirmed quote's order that the user replaced (Refresh) or dropped (Cancel). The order
 * is moved to `expired` directly — not through the events pipeline — so nobody is notified, and it leaves the
 * reconciler's open set, so its card (now showing the newer quote) is never edited to "expired".
 */
export const SUPERSEDED = { refreshed: "superseded", cancelled: "cancelled" } as const;

export async function supersede(deps: BotDeps, orderId: string, reason?: string): Promise<void> {
  const current = await deps.store.orders.get(orderId);
  if (!current || current.confirmedAt || current.stage !== "awaiting_payment") return;
  await deps.store.orders.transition(orderId, {
    stage: "expired",
    ...(reason ? { failureReason: reason } : {}),
  });
}
