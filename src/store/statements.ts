import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { claimKey } from "./claims.ts";
import { keys } from "./keys.ts";
import { type HeldLock, holdLock } from "./locks.ts";
import type { OrderRecord } from "./order-record.ts";
import type { OrderRepository } from "./orders.ts";

/**
 * A user's order statements (/history's export): the one export a user may have running, and their orders of a
 * period read in pages, so a long history is never held whole.
 */

/** How long a claim outlives a process that died mid-export (renewed while the export runs). */
const CLAIM_TTL_MS = 60_000;

/** Creation times (ms, the API's clock, as orders are stamped): `fromMs` included, `toMs` excluded. */
export interface StatementRange {
  fromMs: number;
  toMs: number;
}

export class StatementRepository {
  constructor(
    private readonly redis: Redis,
    private readonly orders: Pick<OrderRepository, "getMany">,
  ) {}

  /**
   * Take the user's one export (SET NX PX, renewed while held), or undefined while another runs. Release it when
   * done; a crashed holder's claim lapses after a minute.
   */
  async claim(userId: number): Promise<HeldLock | undefined> {
    const key = keys.userStatement(userId);
    const token = randomUUID();
    if (!(await claimKey(this.redis, key, token, CLAIM_TTL_MS))) return undefined;
    return holdLock(this.redis, key, token, CLAIM_TTL_MS);
  }

  /**
   * The user's orders created in `range`, newest first, `pageSize` at a time. Pages follow the history index by
   * score (its creation time) from where the last page ended, not by rank: an order created or dropped meanwhile
   * shifts no later page, so no order is read twice or skipped. Ids whose record is gone are left out.
   */
  async *pages(userId: number, range: StatementRange, pageSize = 100): AsyncGenerator<OrderRecord[]> {
    const key = keys.userOrders(userId);
    let max = `(${range.toMs}`;
    // Orders already read at the score `max` names (same millisecond), skipped on the next read from it.
    let skip = 0;
    for (;;) {
      const flat = await this.redis.zrevrangebyscore(
        key,
        max,
        range.fromMs,
        "WITHSCORES",
        "LIMIT",
        skip,
        pageSize,
      );
      const ids: string[] = [];
      for (let index = 0; index < flat.length; index += 2) ids.push(flat[index]!);
      if (ids.length === 0) return;
      const last = flat[flat.length - 1]!;
      let sameScore = 0;
      for (let index = flat.length - 1; index > 0 && flat[index] === last; index -= 2) sameScore += 1;
      skip = max === last ? skip + sameScore : sameScore;
      max = last;
      const records = await this.orders.getMany(ids);
      if (records.length > 0) yield records;
      if (ids.length < pageSize) return;
    }
  }
}
