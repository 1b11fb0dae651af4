import type { Redis } from "ioredis";
import { keys } from "./keys.ts";

/**
 * The reconciler's backoff per open order: how many checks found it not yet in a terminal stage. An order that moves
 * starts over: `Orders.transition` deletes the count in the script that records the move.
 */
export class ReconcileAttempts {
  constructor(private readonly redis: Redis) {}

  /** Count one more check (the counter lives a week) and return the count. */
  async next(orderId: string): Promise<number> {
    const key = keys.reconcileAttempts(orderId);
    const replies = await this.redis
      .multi()
      .incr(key)
      .expire(key, 7 * 24 * 3600)
      .exec();
    const [error, count] = replies?.[0] ?? [null, 1];
    if (error) throw error;
    return Number(count);
  }
}
