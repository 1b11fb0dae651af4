import type { BotDeps } from "#src/bot/context.js";
import type { OrderRecord, OrderTransition } from "#src/store/index.js";

/**
 * How an unconfirmed quote's order is let go: replaced by a newer quote (Refresh: `expired`, reason `superseded`),
 * dropped before its owner confirmed it (Cancel, /cancel, leaving the flow, or a quote the flow may not hand out:
 * stage `cancelled`, stamped with when), or found past its deadline (`expired`).
 */
export type QuoteDrop = "refreshed" | "cancelled" | "expired";

const DROPS: Record<QuoteDrop, OrderTransition> = {
  refreshed: { stage: "expired", failureReason: "superseded" },
  cancelled: { stage: "cancelled" },
  expired: { stage: "expired" },
};

/**
 * The order is moved directly — not through the events pipeline — so nobody is notified, and it leaves the
 * reconciler's open set, so its card (now showing the newer quote, or "Quote cancelled") is never edited to
 * "expired". Returns the order as it now is (undefined: gone); a confirmed or finished one is left as it was.
 */
export async function supersede(
  deps: BotDeps,
  orderId: string,
  drop: QuoteDrop,
): Promise<OrderRecord | undefined> {
  const current = await deps.store.orders.get(orderId);
  if (!current || current.confirmedAt || current.stage !== "awaiting_payment") return current;
  return (await deps.store.orders.transition(orderId, DROPS[drop]))?.order ?? current;
}
