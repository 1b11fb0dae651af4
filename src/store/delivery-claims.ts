import type { Redis } from "ioredis";
import type { DeliveryClaim } from "./delivery-claim.ts";
import { keys } from "./keys.ts";
import { holdLock, type LockOptions, lockToken, lockTtlMs, takeOverIfDead } from "./locks.ts";
import { type OrderRecord, parseOrderText } from "./order-record.ts";
import type { OrderRepository } from "./orders.ts";
import { type Outbox, parsePending, readPendingLua } from "./outbox.ts";
import { LuaScript } from "./script.ts";
import { parseUserRecord, type UserRecord } from "./user-record.ts";
import type { UserRepository } from "./users.ts";

// The order's delivery lock (SET NX PX) and, only when it was free, everything the delivery reads, in one round trip:
// what the outbox has after its cursor (readPendingLua), the order, and its owner's record when the caller knows who
// that is. {0} when the lock is held.
//   KEYS: the lock, the outbox, its cursor, the order[, the owner's record]   ARGV: the lock's token, its TTL (ms)
const CLAIM = new LuaScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {0} end
${readPendingLua("KEYS[2]", "KEYS[3]")}
if not KEYS[5] then return {1, cursor, entries, sending, redis.call('GET', KEYS[4])} end
local records = redis.call('MGET', KEYS[4], KEYS[5])
return {1, cursor, entries, sending, records[1], records[2]}
`);

/**
 * Taking an order's delivery. One delivery at a time talks to an order's chat: the lock (store/locks.ts, renewed
 * while held, taken over from a dead owner) is taken in the same script that reads what the delivery needs, so a
 * delivery starts with one round trip instead of three.
 */
export class DeliveryClaims {
  constructor(
    private readonly redis: Redis,
    private readonly outbox: Outbox,
    private readonly orders: OrderRepository,
    private readonly users: UserRepository,
  ) {}

  /**
   * The order's delivery, or undefined when another live delivery holds it. `ownerId`: the order's owner when the
   * caller knows it (the process that recorded the state); the owner is otherwise read after the order.
   */
  async claim(
    orderId: string,
    ownerId: number | undefined,
    options: LockOptions = {},
  ): Promise<DeliveryClaim | undefined> {
    const key = keys.orderLock(orderId);
    const token = lockToken(options.processes);
    const ttlMs = lockTtlMs(options);
    const reply = (await CLAIM.run(
      this.redis,
      [
        key,
        keys.outbox(orderId),
        keys.outboxCursor(orderId),
        keys.order(orderId),
        ...(ownerId === undefined ? [] : [keys.user(ownerId)]),
      ],
      [token, ttlMs],
    )) as unknown[];
    if (reply[0] === 1) {
      const lock = holdLock(this.redis, key, token, ttlMs);
      const order = parseOrderText(reply[4] as string | null);
      return {
        lock,
        pending: parsePending(reply[1], reply[2], reply[3]),
        order,
        owner: await this.ownerOf(order, ownerId, reply[5] as string | null),
      };
    }
    // Held: by a live delivery (come back later), or by a process that died holding it (take it over, then read).
    if (!(await takeOverIfDead(this.redis, key, token, options))) return undefined;
    const lock = holdLock(this.redis, key, token, ttlMs);
    const [pending, order] = await Promise.all([this.outbox.pending(orderId), this.orders.get(orderId)]);
    return { lock, pending, order, owner: await this.ownerOf(order, undefined, null) };
  }

  /** The owner's record: the one read with the order when it is the order's owner, else read now. */
  private async ownerOf(
    order: OrderRecord | undefined,
    ownerId: number | undefined,
    ownerRaw: string | null,
  ): Promise<UserRecord | undefined> {
    if (!order) return undefined;
    if (order.userId === ownerId) return parseUserRecord(ownerRaw);
    return this.users.get(order.userId);
  }
}
