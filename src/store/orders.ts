import type { Redis } from "ioredis";
import { parseJson } from "./json.ts";
import { keys } from "./keys.ts";
import {
  isTerminalStage,
  type NewOrder,
  type OrderRecord,
  type OrderStage,
  type OrderTransition,
  type OrderWithText,
  orderRecordSchema,
  STAGE_RANK,
} from "./order-record.ts";
import { LuaScript } from "./script.ts";
import type { UpdateReads } from "./update-reads.ts";

interface TransitionResult {
  order: OrderRecord;
  /** False when the transition was stale (lower stage, fewer confirmations) or a duplicate. */
  changed: boolean;
  previousStage: OrderStage;
  /** The confirmation count before the transition (on-chain orders), so every block in between can be shown. */
  previousConfirmations?: number;
}

/** Orders live for 90 days after their last change; history keeps the newest 500 per user. */
const ORDER_TTL_SECONDS = 90 * 24 * 3600;
const HISTORY_LIMIT = 500;

/**
 * Within one update (store/update-reads.ts), the order text it last read or wrote: the first guess of `annotate`'s
 * compare-and-set, which checks it (another process's change meanwhile costs the read after all). Never the answer
 * to a read: orders are always read from Redis.
 */
const lastText = (orderId: string) => `order-text:${orderId}`;

export class OrderRepository {
  constructor(
    private readonly redis: Redis,
    private readonly reads: UpdateReads,
  ) {}

  async create(input: NewOrder): Promise<OrderRecord> {
    const now = new Date().toISOString();
    const order: OrderRecord = {
      ...input,
      stage: input.stage ?? "awaiting_payment",
      createdAt: now,
      updatedAt: now,
    };
    const score = Date.parse(now);
    const text = JSON.stringify(order);
    await this.redis
      .multi()
      .set(keys.order(order.orderId), text, "EX", ORDER_TTL_SECONDS)
      .set(keys.orderByHash(order.hash), order.orderId, "EX", ORDER_TTL_SECONDS)
      .set(keys.orderByQuote(order.quoteId), order.orderId, "EX", ORDER_TTL_SECONDS)
      .zadd(keys.userOrders(order.userId), score, order.orderId)
      .zremrangebyrank(keys.userOrders(order.userId), 0, -HISTORY_LIMIT - 1)
      .zadd(keys.ordersAll(), score, order.orderId)
      .zadd(keys.ordersOpen(), Date.parse(order.expiresAt), order.orderId)
      .exec();
    this.reads.wrote(lastText(order.orderId), text);
    return order;
  }

  async get(orderId: string): Promise<OrderRecord | undefined> {
    return (await this.getWithRaw(orderId))?.order;
  }

  /**
   * The order with the exact text it was read from: handed to `transition()`, it saves the read-before-write when
   * nothing changed the order meanwhile (the compare-and-set still checks; a stale text just costs the re-read).
   * `read`: its text as the caller read it already (null: absent), instead of a read here.
   */
  async getWithRaw(orderId: string, read?: string | null): Promise<OrderWithText | undefined> {
    const raw = read === undefined ? await this.redis.get(keys.order(orderId)) : read;
    const order = parseJson(raw, orderRecordSchema);
    if (!raw || !order) return undefined;
    this.reads.wrote(lastText(orderId), raw);
    return { order, raw };
  }

  async findByHash(hash: string): Promise<OrderRecord | undefined> {
    const orderId = await this.redis.get(keys.orderByHash(hash));
    return orderId ? this.get(orderId) : undefined;
  }

  async findByQuoteId(quoteId: string): Promise<OrderRecord | undefined> {
    const orderId = await this.redis.get(keys.orderByQuote(quoteId));
    return orderId ? this.get(orderId) : undefined;
  }

  /** Newest first. */
  async listForUser(
    userId: number,
    offset = 0,
    limit = 5,
  ): Promise<{ orders: OrderRecord[]; total: number }> {
    const [ids, total] = await Promise.all([
      this.redis.zrevrange(keys.userOrders(userId), offset, offset + limit - 1),
      this.redis.zcard(keys.userOrders(userId)),
    ]);
    const orders = await this.getMany(ids);
    return { orders, total };
  }

  async getMany(orderIds: string[]): Promise<OrderRecord[]> {
    if (orderIds.length === 0) return [];
    const raws = await this.redis.mget(...orderIds.map((id) => keys.order(id)));
    return raws
      .map((raw) => parseJson(raw, orderRecordSchema))
      .filter((order): order is OrderRecord => !!order);
  }

  /** Orders not yet in a terminal stage whose expected time (expiry) is before `beforeMs`. */
  async openOrdersDue(beforeMs: number, limit = 100): Promise<OrderRecord[]> {
    const ids = await this.redis.zrangebyscore(keys.ordersOpen(), 0, beforeMs, "LIMIT", 0, limit);
    return this.getMany(ids);
  }

  /** Push the next check of an open order later (reconciler backoff). */
  async rescheduleOpen(orderId: string, atMs: number): Promise<void> {
    await this.redis.zadd(keys.ordersOpen(), "XX", atMs, orderId);
  }

  /**
   * Record message ids / confirmation / delivery time (not a stage change). A confirmation enters the order in
   * `orders:undelivered` first (so a crash right after it still leaves a trace for the recovery sweep); a delivery
   * takes it out after it is recorded.
   */
  async annotate(
    orderId: string,
    patch: Partial<
      Pick<
        OrderRecord,
        | "quoteMessageId"
        | "statusMessageId"
        | "invoiceMessageId"
        | "confirmedAt"
        | "recipientId"
        | "deliveredAt"
      >
    >,
  ): Promise<OrderRecord | undefined> {
    if (patch.confirmedAt && !patch.deliveredAt) {
      await this.redis.zadd(
        keys.ordersUndelivered(),
        "NX",
        Date.parse(patch.confirmedAt) || Date.now(),
        orderId,
      );
    }
    // Always a change, so the compare-and-set checks the guessed text.
    const guess = this.reads.peek<string>(lastText(orderId));
    const result = await this.mutate(orderId, guess, undefined, (order) => ({
      order: { ...order, ...patch },
      changed: true,
    }));
    if (patch.deliveredAt) await this.forgetUndelivered(orderId);
    return result?.order;
  }

  /** Confirmed orders not known to be delivered, confirmed before `beforeMs` (oldest first). */
  async undeliveredDue(beforeMs: number, limit = 20): Promise<string[]> {
    return this.redis.zrangebyscore(keys.ordersUndelivered(), 0, beforeMs, "LIMIT", 0, limit);
  }

  async forgetUndelivered(orderId: string): Promise<void> {
    await this.redis.zrem(keys.ordersUndelivered(), orderId);
  }

  /**
   * Claim the right to deliver an order's missing messages for `ttlMs` (SET NX PX): two sweeps at once, in one
   * process or several, deliver once. The TTL frees the claim of a sweep that died mid-way.
   */
  async claimRecovery(orderId: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(keys.orderRecovery(orderId), "1", "PX", ttlMs, "NX")) === "OK";
  }

  /**
   * Note the refund's current state on the order (for /status, the card and the receipt); not a stage change.
   * `changed` is true for exactly one caller per new state (compare-and-set), so what follows a state only once
   * (an alert, the receipt) hangs on it.
   */
  async noteRefund(
    orderId: string,
    refund: NonNullable<OrderRecord["refund"]>,
  ): Promise<{ order: OrderRecord; changed: boolean } | undefined> {
    return this.mutate(orderId, undefined, undefined, (order) => {
      const same =
        order.refund?.state === refund.state && order.refund?.transactionId === refund.transactionId;
      return same ? { order, changed: false } : { order: { ...order, refund }, changed: true };
    });
  }

  /**
   * Apply a transition atomically and monotonically: a stage never moves back, a terminal stage never changes,
   * confirmations only grow. Returns changed=false for stale or duplicate transitions.
   */
  async transition(
    orderId: string,
    update: OrderTransition,
    options: {
      /** The order's text as just read (getWithRaw), to skip the first read. */
      known?: string | undefined;
      /**
       * When the reconciler should look at the changed order next (ms), if at all: written in the same script as
       * the change, with its attempt count reset (an order that moved is not stuck).
       */
      followUpAt?: (order: OrderRecord) => number | undefined;
    } = {},
  ): Promise<TransitionResult | undefined> {
    let previousStage: OrderStage = "awaiting_payment";
    let previousConfirmations: number | undefined;
    const result = await this.mutate(orderId, options.known, options.followUpAt, (order) => {
      previousStage = order.stage;
      previousConfirmations = order.confirmations;
      const next = { ...order };
      let changed = false;
      if (update.stage && update.stage !== order.stage) {
        const forward = !isTerminalStage(order.stage) && STAGE_RANK[update.stage] > STAGE_RANK[order.stage];
        const expiryAllowed = update.stage !== "expired" || order.stage === "awaiting_payment";
        if (forward && expiryAllowed) {
          next.stage = update.stage;
          changed = true;
        }
      }
      if (update.confirmations !== undefined && update.confirmations > (order.confirmations ?? -1)) {
        if (!isTerminalStage(order.stage) || next.stage === "completed") {
          next.confirmations = update.confirmations;
          changed = true;
        }
      }
      for (const field of ["txid", "payoutReference", "failureReason"] as const) {
        const value = update[field];
        if (value && !order[field] && (changed || !isTerminalStage(order.stage))) {
          next[field] = value;
          changed = true;
        }
      }
      return { order: next, changed };
    });
    if (!result) return undefined;
    return {
      ...result,
      previousStage,
      ...(previousConfirmations === undefined ? {} : { previousConfirmations }),
    };
  }

  /**
   * Optimistic read-modify-write: compute in JS, then compare-and-set in Lua. (WATCH is per connection and this
   * client is shared by concurrent handlers, so it cannot be used safely here.)
   */
  private async mutate(
    orderId: string,
    known: string | undefined,
    followUpAt: ((order: OrderRecord) => number | undefined) | undefined,
    change: (order: OrderRecord) => { order: OrderRecord; changed: boolean },
  ): Promise<{ order: OrderRecord; changed: boolean } | undefined> {
    const key = keys.order(orderId);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const raw = attempt === 0 && known !== undefined ? known : await this.redis.get(key);
      const current = parseJson(raw, orderRecordSchema);
      if (!raw || !current) return undefined;
      const { order, changed } = change(current);
      if (!changed) return { order: current, changed: false };
      order.updatedAt = new Date().toISOString();
      const text = JSON.stringify(order);
      const args = [raw, text, ORDER_TTL_SECONDS, isTerminalStage(order.stage) ? "1" : "0", orderId];
      const followUp = followUpAt?.(order);
      const swapped = await COMPARE_AND_SET.run(
        this.redis,
        [key, keys.ordersOpen(), keys.reconcileAttempts(orderId)],
        followUp === undefined ? args : [...args, followUp],
      );
      if (swapped === 1) {
        this.reads.wrote(lastText(orderId), text);
        return { order, changed: true };
      }
    }
    throw new Error(`order ${orderId}: too much contention`);
  }
}

// EVALSHA: a transition happens for every event of every order; the script text need not travel each time.
//   KEYS: the order, the open-orders set, the order's reconcile attempt count.
//   ARGV: the text read · the new text · TTL · '1' when the new stage is terminal · the order id · [the
//   reconciler's next look (ms): moves the order in the open set (if still there) and resets its attempt count]
const COMPARE_AND_SET = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
if ARGV[4] == '1' then redis.call('ZREM', KEYS[2], ARGV[5]) end
if ARGV[6] then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[6], ARGV[5])
  redis.call('DEL', KEYS[3])
end
return 1
`);
