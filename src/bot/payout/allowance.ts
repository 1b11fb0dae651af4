import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { escapeHtml } from "#src/i18n/index.js";
import { type Country, currencyOfCountry, formatMoney, localDay } from "#src/money/index.js";
import type { OrderRecord, Store } from "#src/store/index.js";

/**
 * Daily allowance: where ops set a limit for a corridor (/limits), each user may send up to that much per day
 * (the corridor's calendar day: it resets at local midnight). What counts is what the recipient gets on orders the
 * user confirmed today that did not expire or fail; quotes never confirmed do not count.
 */
export interface Allowance {
  /** Minor units of the corridor's currency. */
  limit: number;
  used: number;
  remaining: number;
}

/** What the user's confirmed payouts in `country` delivered (or will) today; `except` leaves one order out. */
export function usedToday(
  orders: readonly OrderRecord[],
  country: Country,
  now: number,
  except?: string,
): number {
  const today = localDay(now, country);
  let used = 0;
  for (const order of orders) {
    if (order.kind !== "payout" || order.corridor !== country || order.orderId === except) continue;
    if (!order.confirmedAt || order.stage === "expired" || order.stage === "failed") continue;
    if (localDay(Date.parse(order.confirmedAt), country) === today) used += order.receive.amount;
  }
  return used;
}

/** How many of a user's latest orders are looked at: far more than anyone confirms in a day. */
const RECENT_ORDERS = 100;

/** The user's allowance in `country` now, or undefined when ops set no limit there. */
export async function allowanceFor(
  deps: { store: Pick<Store, "settings" | "orders"> },
  userId: number,
  country: Country,
  now: number,
  except?: string,
): Promise<Allowance | undefined> {
  const limit = (await deps.store.settings.dailyLimits())[country];
  if (limit === undefined) return undefined;
  const { orders } = await deps.store.orders.listForUser(userId, 0, RECENT_ORDERS);
  const used = usedToday(orders, country, now, except);
  return { limit, used, remaining: Math.max(0, limit - used) };
}

/** Shown above the amount prompt when an amount is over what the user may still send today. */
export function overLimitNotice(io: FlowIo, country: Country, allowance: Allowance): string {
  const currency = currencyOfCountry(country);
  const money = (minor: number) => escapeHtml(formatMoney(minor, currency, io.locale));
  return io.t(
    allowance.remaining > 0 ? "payout:amount.error.over_limit" : "payout:amount.error.limit_reached",
    {
      left: money(allowance.remaining),
      limit: money(allowance.limit),
      country: io.t(`payout:country.names.${country}`),
    },
  );
}
