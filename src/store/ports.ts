import type { Store } from "./index.ts";

/**
 * The narrow port of each product of src/bot: the store's members its modules use directly
 * (test/unit/store-ports.test.ts holds each product folder to its list). The rules the products share
 * (src/bot/rules) and the bot's own modules (sessions, the update's first reads) are not counted here.
 * A product that needs another member widens its port here, where the review sees it.
 */
export const PRODUCT_PORTS = {
  account: ["caches", "once", "orders", "rateAlerts", "recipients", "repeats", "statements", "users"],
  buy: ["buyMarks", "once", "orders", "quoteBudget"],
  merchant: ["approvals", "audit", "once", "paymentLinks", "users"],
  ops: [
    "alerts",
    "approvals",
    "audit",
    "broadcasts",
    "merchants",
    "once",
    "orders",
    "paymentLinks",
    "ping",
    "settings",
    "stats",
    "users",
  ],
  refund: ["alerts", "approvals", "audit", "orders", "refunds", "users"],
  payout: ["once", "orders", "quoteBudget", "recipients", "repeats", "requests", "settings"],
} as const satisfies Record<string, readonly (keyof Store)[]>;

/** What a product of src/bot may use of the store. */
export type ProductStore<P extends keyof typeof PRODUCT_PORTS> = Pick<
  Store,
  (typeof PRODUCT_PORTS)[P][number]
>;
