import type { Redis } from "ioredis";
import { type ClaimRequest, type DeliveryClaim, deliveryClaimRequest } from "./delivery-claim.ts";
import { keys } from "./keys.ts";
import {
  keepOrderText,
  type NewOrder,
  type OrderRecord,
  type OrderTransition,
  type OrderWithText,
  parseOrderText,
  type TransitionResult,
} from "./order-record.ts";
import { dropRetired, writeNewOrder } from "./order-retention.ts";
import {
  applyTransition,
  COMPARE_AND_SET,
  COMPARE_AND_SET_RECORD_AND_CLAIM,
  COMPARE_AND_SET_THEN_RECORD,
  compareAndSetInput,
  type TransitionOptions,
} from "./order-transition.ts";
import { type Outbox, recordCall } from "./outbox.ts";
import { CONFIRMING_FLOW_CARD_MS } from "./status-card-claim.ts";
import type { UpdateReads } from "./update-reads.ts";

/** History keeps the newest 500 orders per user (an order's lifetime: store/order-retention.ts). */
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
    private readonly outbox: Outbox,
    /**
     * The app's clock (the payout API's: `BotDeps.now`), for every time an order is stamped with: its times sit on
     * the clock its deadlines, cards and receipts are read on, so /history and /stats agree with them.
     */
    private readonly now: () => number,
  ) {}

  async create(input: NewOrder): Promise<OrderRecord> {
    const now = new Date(this.now()).toISOString();
    const order: OrderRecord = {
      ...input,
      stage: input.stage ?? "awaiting_payment",
      createdAt: now,
      updatedAt: now,
    };
    const text = JSON.stringify(order);
    await writeNewOrder(this.redis, order, text, HISTORY_LIMIT);
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
    const order = parseOrderText(raw);
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
    return raws.map((raw) => parseOrderText(raw)).filter((order): order is OrderRecord => !!order);
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
   * takes it out after it is recorded. The first confirmation of an order without a card claims its status card
   * for the confirming flow (store/status-card-claim.ts).
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
        Date.parse(patch.confirmedAt) || this.now(),
        orderId,
      );
    }
    // Always a change, so the compare-and-set checks the guessed text.
    const guess = this.reads.peek<string>(lastText(orderId));
    const result = await this.mutate(orderId, guess, undefined, (order) => {
      const claimsCard = patch.confirmedAt && !order.confirmedAt && order.statusMessageId === undefined;
      const claim = { by: "flow", until: this.now() + CONFIRMING_FLOW_CARD_MS };
      return {
        order: { ...order, ...patch, ...(claimsCard ? { statusCardClaim: claim } : {}) },
        changed: true,
      };
    });
    if (patch.deliveredAt) await this.forgetUndelivered(orderId);
    return result?.order;
  }

  /** Change the order alone by compare-and-set (`change` may run more than once); the order as written, if any. */
  async update(orderId: string, change: (order: OrderRecord) => { order: OrderRecord; changed: boolean }) {
    return (await this.mutate(orderId, undefined, undefined, change))?.order;
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

  /** Orders that ended unpaid and whose retention ran out by `nowMs` leave Redis (store/order-retention.ts). */
  async dropRetired(nowMs: number, limit = 200): Promise<number> {
    return dropRetired(this.redis, nowMs, limit);
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
   * Apply a transition atomically and monotonically (store/order-transition.ts). Returns changed=false for stale or
   * duplicate transitions. With `record`, the states it gives for the outcome are recorded in the outbox in the same
   * script as the change (or alone when nothing changed), and `appended` says how many were new.
   */
  async transition(
    orderId: string,
    update: OrderTransition,
    options: TransitionOptions = {},
  ): Promise<(TransitionResult & { appended: number; claim?: DeliveryClaim }) | undefined> {
    let previous: Pick<TransitionResult, "previousStage" | "previousConfirmations"> | undefined;
    const outcome = (order: OrderRecord, changed: boolean): TransitionResult => ({
      order,
      changed,
      previousStage: previous?.previousStage ?? "awaiting_payment",
      ...(previous?.previousConfirmations === undefined
        ? {}
        : { previousConfirmations: previous.previousConfirmations }),
    });
    const { record, claim } = options;
    const result = await this.mutate(
      orderId,
      options.known,
      options.followUpAt,
      (order, at) => {
        previous = { previousStage: order.stage, previousConfirmations: order.confirmations };
        return applyTransition(order, update, at);
      },
      record && ((order) => recordCall(orderId, record.states(outcome(order, true)), { mark: record.mark })),
      record && claim && ((order) => deliveryClaimRequest(this.redis, orderId, order.userId, claim)),
    );
    if (!result) return undefined;
    const done = outcome(result.order, result.changed);
    if (!record || result.appended !== undefined)
      return { ...done, appended: result.appended ?? 0, ...(result.claim ? { claim: result.claim } : {}) };
    const appended = await this.outbox.recordAll(orderId, record.states(done), { mark: record.mark });
    return { ...done, appended };
  }

  /**
   * Optimistic read-modify-write: compute in JS, then compare-and-set in Lua. (WATCH is per connection and this
   * client is shared by concurrent handlers, so it cannot be used safely here.) `record`: the outbox record the
   * change makes in the same script (store/order-transition.ts); `appended` is its count.
   */
  private async mutate(
    orderId: string,
    known: string | undefined,
    followUpAt: ((order: OrderRecord) => number | undefined) | undefined,
    /** `at`: the change's time (the app's clock), also its `updatedAt`. */
    change: (order: OrderRecord, at: string) => { order: OrderRecord; changed: boolean },
    record?: (order: OrderRecord) => { keys: string[]; args: Array<string | number> },
    claim?: (order: OrderRecord) => ClaimRequest,
  ): Promise<{ order: OrderRecord; changed: boolean; appended?: number; claim?: DeliveryClaim } | undefined> {
    const key = keys.order(orderId);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const raw = attempt === 0 && known !== undefined ? known : await this.redis.get(key);
      const current = parseOrderText(raw);
      if (!raw || !current) return undefined;
      const at = new Date(this.now()).toISOString();
      const { order, changed } = change(current, at);
      if (!changed) return { order: current, changed: false };
      order.updatedAt = at;
      const text = JSON.stringify(order);
      const { keys: orderKeys, args } = compareAndSetInput(current, order, raw, text, followUpAt?.(order));
      const also = record?.(order);
      const claiming = also && claim?.(order);
      // The claim's keys and arguments go between the compare-and-set's and the record's (store/order-transition.ts).
      const script = claiming
        ? COMPARE_AND_SET_RECORD_AND_CLAIM
        : also
          ? COMPARE_AND_SET_THEN_RECORD
          : COMPARE_AND_SET;
      const answer = await script.run(
        this.redis,
        [...orderKeys, ...(claiming?.keys ?? []), ...(also?.keys ?? [])],
        [...args, ...(claiming?.args ?? []), ...(also?.args ?? [])],
      );
      if (answer !== 0) {
        keepOrderText(text, order);
        this.reads.wrote(lastText(orderId), text);
        const reply = Array.isArray(answer) ? (answer as unknown[]) : undefined;
        return {
          order,
          changed: true,
          ...(reply ? { appended: Number(reply[1]) } : {}),
          ...(claiming && reply && reply.length > 2 ? { claim: claiming.taken(reply.slice(2), order) } : {}),
        };
      }
    }
    throw new Error(`order ${orderId}: too much contention`);
  }
}
