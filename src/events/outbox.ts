import type { Redis } from "ioredis";
import { z } from "zod";
import type { OrderRecord, OrderStage } from "../store/orders.ts";
import { ORDER_STAGES } from "../store/orders.ts";
import { eventKeys } from "./keys.ts";

/**
 * The notification outbox: per order, the list of states the user has still to see, in the order they were
 * applied, and a cursor of how many were delivered. Ingest appends after `transition()`; delivery reads from the
 * cursor, talks to Telegram and moves the cursor after each message. Because ingest appends whenever the order's
 * state is ahead of the log's tail (not only when `changed` was true), a crash between `transition()` and the
 * append is repaired by the retry, and a crash during delivery resumes at the first undelivered entry.
 */
export const outboxEntrySchema = z.object({
  seq: z.number().int(),
  stage: z.enum(ORDER_STAGES),
  confirmations: z.number().int().optional(),
  txid: z.string().optional(),
  payoutReference: z.string().optional(),
  failureReason: z.string().optional(),
  /** A stage change (buzz the phone); false for a silent card update such as one more confirmation. */
  notify: z.boolean(),
  /** The stage shown before this entry (for ops alerts: a failure after payment means held funds). */
  from: z.enum(ORDER_STAGES).optional(),
  at: z.string(),
});
export type OutboxEntry = z.infer<typeof outboxEntrySchema>;

const OUTBOX_TTL_SECONDS = 30 * 24 * 3600;

/** What distinguishes one visible state of an order from another. */
export function snapshotKey(
  order: Pick<OrderRecord, "stage" | "confirmations" | "txid" | "payoutReference">,
) {
  return [order.stage, order.confirmations ?? "", order.txid ?? "", order.payoutReference ?? ""].join("|");
}
const BASELINE_STAGE: OrderStage = "awaiting_payment";
const BASELINE_KEY = snapshotKey({ stage: BASELINE_STAGE });

// Append only when the state differs from the tail (or from the untouched baseline when the log is empty).
const RECORD = `
local tail = redis.call('LINDEX', KEYS[1], -1)
local tailKey = ARGV[3]
local tailStage = ARGV[4]
if tail then
  local decoded = cjson.decode(tail)
  tailKey = decoded.key
  tailStage = decoded.stage
end
if tailKey == ARGV[1] then return 0 end
local entry = cjson.decode(ARGV[2])
entry.key = ARGV[1]
entry.notify = (tailStage ~= entry.stage)
entry.from = tailStage
entry.seq = redis.call('LLEN', KEYS[1]) + 1
redis.call('RPUSH', KEYS[1], cjson.encode(entry))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
return 1
`;

export class Outbox {
  constructor(private readonly redis: Redis) {}

  /** Append the order's current state if the user has not been given it yet. Returns whether it appended. */
  async record(order: OrderRecord): Promise<boolean> {
    const entry = {
      stage: order.stage,
      ...(order.confirmations === undefined ? {} : { confirmations: order.confirmations }),
      ...(order.txid ? { txid: order.txid } : {}),
      ...(order.payoutReference ? { payoutReference: order.payoutReference } : {}),
      ...(order.failureReason ? { failureReason: order.failureReason } : {}),
      at: new Date().toISOString(),
    };
    const appended = await this.redis.eval(
      RECORD,
      2,
      eventKeys.outbox(order.orderId),
      eventKeys.outboxCursor(order.orderId),
      snapshotKey(order),
      JSON.stringify(entry),
      BASELINE_KEY,
      BASELINE_STAGE,
      String(OUTBOX_TTL_SECONDS),
    );
    return appended === 1;
  }

  /** Entries not yet delivered, oldest first, with the cursor they start at. */
  async pending(orderId: string): Promise<{ cursor: number; entries: OutboxEntry[] }> {
    const cursor = Number((await this.redis.get(eventKeys.outboxCursor(orderId))) ?? "0");
    const raws = await this.redis.lrange(eventKeys.outbox(orderId), cursor, -1);
    const entries: OutboxEntry[] = [];
    for (const raw of raws) {
      const parsed = outboxEntrySchema.safeParse(JSON.parse(raw));
      if (parsed.success) entries.push(parsed.data);
    }
    return { cursor, entries };
  }

  async hasPending(orderId: string): Promise<boolean> {
    const [cursor, length] = await Promise.all([
      this.redis.get(eventKeys.outboxCursor(orderId)),
      this.redis.llen(eventKeys.outbox(orderId)),
    ]);
    return length > Number(cursor ?? "0");
  }

  /** Mark entries up to and including `seq` delivered (the cursor only moves forward). */
  async advance(orderId: string, seq: number): Promise<void> {
    await this.redis.eval(
      `local current = tonumber(redis.call('GET', KEYS[1]) or '0')
       if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2])) end
       return 1`,
      1,
      eventKeys.outboxCursor(orderId),
      String(seq),
      String(OUTBOX_TTL_SECONDS),
    );
  }
}
