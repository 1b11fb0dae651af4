import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { endedUnpaid, type OrderRecord } from "./order-record.ts";
import { OPEN_QUOTES_TTL_MS } from "./quote-budget.ts";

/**
 * How long an order and every key pointing at it live: written together when the order is created, shortened when
 * it ends unpaid (in the transition's compare-and-set, store/order-transition.ts), dropped together by the sweep.
 */

/** Orders live for 90 days after their last change. */
const ORDER_TTL_SECONDS = 90 * 24 * 3600;

/**
 * An order that ended unpaid (expired, or replaced by Refresh: stage `expired`; dropped by Cancel: `cancelled`) is
 * kept 3 days from then, not 90: long enough for a late payment (a bank transfer over a weekend, a Lightning payment
 * stuck in flight, a cancelled quote paid anyway) to still find its order, /history to show it and "New quote" to
 * quote it again; then its record and every index entry go (`dropRetired`). Refresh presses and abandoned quotes so
 * cost Redis days, not months.
 */
const UNPAID_RETENTION_SECONDS = 3 * 24 * 3600;

/** A new order's record and its index entries, in one MULTI; `historyLimit`: the newest kept per user. */
export async function writeNewOrder(
  redis: Redis,
  order: OrderRecord,
  text: string,
  historyLimit: number,
): Promise<void> {
  const score = Date.parse(order.createdAt);
  const write = redis
    .multi()
    .set(keys.order(order.orderId), text, "EX", ORDER_TTL_SECONDS)
    .set(keys.orderByHash(order.hash), order.orderId, "EX", ORDER_TTL_SECONDS)
    .set(keys.orderByQuote(order.quoteId), order.orderId, "EX", ORDER_TTL_SECONDS)
    .zadd(keys.userOrders(order.userId), score, order.orderId)
    .zremrangebyrank(keys.userOrders(order.userId), 0, -historyLimit - 1)
    .zadd(keys.ordersAll(), score, order.orderId)
    // Nothing older than an order's lifetime is left to count (ops stats look 30 days back).
    .zremrangebyscore(keys.ordersAll(), "-inf", score - ORDER_TTL_SECONDS * 1000)
    .zadd(keys.ordersOpen(), Date.parse(order.expiresAt), order.orderId);
  if (order.stage === "awaiting_payment") {
    // It holds one of its owner's open quotes (the quote budget) until it is paid, expires or is dropped.
    write
      .zadd(keys.userQuotesOpen(order.userId), Date.parse(order.expiresAt), order.orderId)
      .pexpire(keys.userQuotesOpen(order.userId), OPEN_QUOTES_TTL_MS);
  }
  await write.exec();
}

/**
 * What the compare-and-set writing `order` over `current` does about its lifetime (store/order-transition.ts): an
 * order that ended unpaid (`expired` or `cancelled`: `applyTransition` ends nothing else so) keeps the short TTL,
 * and the change that ends it enters it in `orders:retiring` (member: the owner, whose history lists it, and the
 * order). A cancelled quote paid after all is revived: it leaves `orders:retiring` and lives its full lifetime.
 * The drop time is on this host's clock, like the record's TTL that Redis counts down beside it.
 */
export function retirement(
  current: Pick<OrderRecord, "stage">,
  order: Pick<OrderRecord, "stage" | "userId" | "orderId">,
): { ttlSeconds: number; retireAt: number | "" | "revive"; member: string } {
  const unpaid = endedUnpaid(order.stage);
  const ending = unpaid && !endedUnpaid(current.stage);
  const revived = !unpaid && endedUnpaid(current.stage);
  return {
    ttlSeconds: unpaid ? UNPAID_RETENTION_SECONDS : ORDER_TTL_SECONDS,
    retireAt: ending ? Date.now() + UNPAID_RETENTION_SECONDS * 1000 : revived ? "revive" : "",
    member: `${order.userId}:${order.orderId}`,
  };
}

/**
 * Drop the orders that ended unpaid and whose retention ran out by `nowMs` (this host's clock, like the record's
 * TTL): the record, its entries in every index (history, ops stats, open, undelivered, the outbox's due set) and
 * the keys kept per order (outbox, cursor, backoff count, buy marks). Its hash and quote-id lookups expire with the
 * record. Returns how many were dropped.
 */
export async function dropRetired(redis: Redis, nowMs: number, limit: number): Promise<number> {
  const members = await redis.zrangebyscore(keys.ordersRetiring(), 0, nowMs, "LIMIT", 0, limit);
  if (members.length === 0) return 0;
  const drop = redis.multi();
  for (const member of members) {
    const split = member.indexOf(":");
    const userId = Number(member.slice(0, split));
    const orderId = member.slice(split + 1);
    drop
      .zrem(keys.userOrders(userId), orderId)
      .zrem(keys.ordersAll(), orderId)
      .zrem(keys.ordersOpen(), orderId)
      .zrem(keys.ordersUndelivered(), orderId)
      .zrem(keys.outboxDue(), orderId)
      .del(
        keys.order(orderId),
        keys.outbox(orderId),
        keys.outboxCursor(orderId),
        keys.reconcileAttempts(orderId),
        keys.buyConfirm(orderId),
        keys.simulated(orderId),
        keys.buyRequote(orderId),
      )
      .zrem(keys.ordersRetiring(), member);
  }
  await drop.exec();
  return members.length;
}
