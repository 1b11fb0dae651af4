import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { type HeldLock, holdLock, type LockOptions, lockToken, lockTtlMs } from "./locks.ts";
import type { OrderRecord } from "./order-record.ts";
import { type PendingEntries, parsePending } from "./outbox.ts";
import { parseUserRecord, type UserRecord } from "./user-record.ts";

/** An order's delivery, taken: its lock, what its outbox has still to deliver, the order and its owner's record. */
export interface DeliveryClaim {
  lock: HeldLock;
  pending: PendingEntries;
  order: OrderRecord | undefined;
  owner: UserRecord | undefined;
}

/**
 * An order's delivery taken in the script that records its new states (store/orders.ts `transition`): the keys and
 * arguments that script adds, and the claim its reply makes. A delivery that starts right after the transition
 * then needs no round trip of its own to begin.
 */
export interface ClaimRequest {
  /** The lock, the outbox's cursor, the owner's record (in this order). */
  keys: [string, string, string];
  /** The lock's token and TTL (ms). */
  args: [string, number];
  /**
   * The claim, from what the script read once it had the lock (readPendingLua's cursor, entries and sending, then
   * the owner's record) and the order as written.
   */
  taken(reply: unknown[], order: OrderRecord): DeliveryClaim;
}

/** The order's delivery, to be taken by the script that writes its transition (store/orders.ts `transition`). */
export function deliveryClaimRequest(
  redis: Redis,
  orderId: string,
  ownerId: number,
  options: LockOptions = {},
): ClaimRequest {
  const key = keys.orderLock(orderId);
  const token = lockToken(options.processes);
  const ttlMs = lockTtlMs(options);
  return {
    keys: [key, keys.outboxCursor(orderId), keys.user(ownerId)],
    args: [token, ttlMs],
    taken: ([cursor, entries, sending, owner], order) => ({
      lock: holdLock(redis, key, token, ttlMs),
      pending: parsePending(cursor, entries, sending),
      order,
      owner: parseUserRecord((owner as string | null | false) || null),
    }),
  };
}
