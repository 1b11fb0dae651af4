import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { parseJson, readJson } from "./json.ts";
import { keys } from "./keys.ts";
import { deleteIfEquals, LuaScript } from "./script.ts";

/**
 * Payment links created by merchants through the bot, and the indexes that route webhook events back to the
 * merchant: paymentRef → link (payment_link.settled carries it) and the link's API order ids → paymentRef
 * (payment.received / payment.sent carry only the order id). Amounts are integer minor units.
 */
const paymentLinkRecordSchema = z.object({
  /** The API's paymentRef (UUID). */
  ref: z.string(),
  merchantId: z.number().int(),
  name: z.string(),
  description: z.string().default(""),
  /** What the payer pays, in kobo. */
  amount: z.number().int(),
  currency: z.literal("NGNKOBO").default("NGNKOBO"),
  url: z.string(),
  /** On-chain settlement address (public; shown shortened). */
  address: z.string(),
  speed: z.enum(["slow", "medium", "fast"]),
  callbackUrl: z.string().optional(),
  /** active → paid (payment received) → settled (coins confirmed on-chain). */
  status: z.enum(["active", "paid", "settled"]).default("active"),
  /** Sats received for the link's payment, once known. */
  receivedSats: z.number().int().optional(),
  txid: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PaymentLinkRecord = z.infer<typeof paymentLinkRecordSchema>;
type PaymentLinkStatus = PaymentLinkRecord["status"];

/** Raise a link's shown feed stage, never lower it. */
const RAISE_STAGE = new LuaScript(
  `local current = tonumber(redis.call('GET', KEYS[1]) or '0')
   if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1 end return 0`,
);

const ORDER_INDEX_TTL_SECONDS = 90 * 24 * 3600;
const FEED_MARKER_TTL_SECONDS = 30 * 24 * 3600;

export class PaymentLinkRepository {
  constructor(private readonly redis: Redis) {}

  async create(
    input: Omit<PaymentLinkRecord, "status" | "createdAt" | "updatedAt" | "description" | "currency"> & {
      description?: string;
    },
  ): Promise<PaymentLinkRecord> {
    const now = new Date().toISOString();
    const record = paymentLinkRecordSchema.parse({
      ...input,
      status: "active",
      createdAt: now,
      updatedAt: now,
    });
    await this.redis
      .multi()
      .set(keys.paymentLink(record.ref), JSON.stringify(record))
      .zadd(keys.merchantPaymentLinks(record.merchantId), Date.parse(now), record.ref)
      .sadd(keys.paymentLinksActive(), record.ref)
      .exec();
    return record;
  }

  async get(ref: string): Promise<PaymentLinkRecord | undefined> {
    return readJson(this.redis, keys.paymentLink(ref), paymentLinkRecordSchema);
  }

  /** Newest first. */
  async listForMerchant(
    merchantId: number,
    offset = 0,
    limit = 10,
  ): Promise<{ links: PaymentLinkRecord[]; total: number }> {
    const key = keys.merchantPaymentLinks(merchantId);
    const [refs, total] = await Promise.all([
      this.redis.zrevrange(key, offset, offset + limit - 1),
      this.redis.zcard(key),
    ]);
    if (refs.length === 0) return { links: [], total };
    const raws = await this.redis.mget(...refs.map((ref) => keys.paymentLink(ref)));
    const links = raws
      .map((raw) => parseJson(raw, paymentLinkRecordSchema))
      .filter((link): link is PaymentLinkRecord => !!link);
    return { links, total };
  }

  /** Remember that an API order belongs to a link (orders are renewed when they expire unpaid). */
  async linkOrders(ref: string, orderIds: string[]): Promise<void> {
    if (orderIds.length === 0) return;
    const pipeline = this.redis.multi();
    for (const orderId of orderIds)
      pipeline.set(keys.paymentLinkByOrder(orderId), ref, "EX", ORDER_INDEX_TTL_SECONDS);
    await pipeline.exec();
  }

  async refForOrder(orderId: string): Promise<string | undefined> {
    return (await this.redis.get(keys.paymentLinkByOrder(orderId))) ?? undefined;
  }

  /** true the first time an unknown order is looked up (for a minute): re-reading links once per order is enough. */
  async claimOrderLookup(orderId: string): Promise<boolean> {
    return (await this.redis.set(keys.paymentLinkOrderLookup(orderId), "1", "EX", 60, "NX")) === "OK";
  }

  async activeRefs(): Promise<string[]> {
    return this.redis.smembers(keys.paymentLinksActive());
  }

  /**
   * Move a link forward (active → paid → settled, never back) and record what the events told us.
   * Read-modify-write: callers hold the link's feed lock (lockFeed), as events of one link are delivered by parallel
   * jobs.
   */
  async advance(
    ref: string,
    patch: { status?: PaymentLinkStatus; receivedSats?: number; txid?: string },
  ): Promise<PaymentLinkRecord | undefined> {
    const link = await this.get(ref);
    if (!link) return undefined;
    const rank: Record<PaymentLinkStatus, number> = { active: 0, paid: 1, settled: 2 };
    const next: PaymentLinkRecord = { ...link, updatedAt: new Date().toISOString() };
    if (patch.status && rank[patch.status] > rank[link.status]) next.status = patch.status;
    if (patch.receivedSats !== undefined && link.receivedSats === undefined)
      next.receivedSats = patch.receivedSats;
    if (patch.txid && !link.txid) next.txid = patch.txid;
    const pipeline = this.redis.multi().set(keys.paymentLink(ref), JSON.stringify(next));
    if (next.status === "settled") pipeline.srem(keys.paymentLinksActive(), ref);
    await pipeline.exec();
    return next;
  }

  /** The feed stage already shown for a link (0: none). */
  async feedStage(ref: string): Promise<number> {
    return Number((await this.redis.get(keys.paymentLinkFeedStage(ref))) ?? 0);
  }

  async raiseFeedStage(ref: string, stage: number): Promise<void> {
    await RAISE_STAGE.run(this.redis, [keys.paymentLinkFeedStage(ref)], [stage, FEED_MARKER_TTL_SECONDS]);
  }

  /**
   * Take the link's feed lock (SET NX PX); undefined when another delivery holds it. The TTL frees it if the holder
   * dies; the holder's work is idempotent (the stage is raised after each message), so a takeover only repeats the
   * message that was in flight.
   */
  async lockFeed(ref: string, ttlMs = 15_000): Promise<(() => Promise<void>) | undefined> {
    const token = randomUUID();
    const key = keys.paymentLinkFeedLock(ref);
    if ((await this.redis.set(key, token, "PX", ttlMs, "NX")) !== "OK") return undefined;
    return async () => {
      await deleteIfEquals(this.redis, key, token);
    };
  }

  /** Whether ops were told already of this treasury withdrawal's status (webhooks arrive at least once). */
  async treasuryNoticeSent(transactionId: string, status: string): Promise<boolean> {
    return (await this.redis.exists(keys.treasuryNoticeSent(transactionId, status))) === 1;
  }

  async markTreasuryNoticeSent(transactionId: string, status: string): Promise<void> {
    await this.redis.set(keys.treasuryNoticeSent(transactionId, status), "1", "EX", FEED_MARKER_TTL_SECONDS);
  }
}
