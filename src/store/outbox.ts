import type { Redis } from "ioredis";
import { z } from "zod";
import { keys } from "./keys.ts";
import { ORDER_STAGES, type OrderRecord, type OrderStage, STAGE_RANK } from "./order-record.ts";
import { LuaScript } from "./script.ts";

/**
 * The notification outbox: per order, the list of states the user has still to see, in the order they were
 * applied, and a cursor of how many were delivered. Ingest appends after `transition()`; delivery reads from the
 * cursor, talks to Telegram and moves the cursor after each message. Because ingest appends whenever the order's
 * state is ahead of the log's tail (not only when `changed` was true), a crash between `transition()` and the
 * append is repaired by the retry, and a crash during delivery resumes at the first undelivered entry.
 */
const outboxEntrySchema = z.object({
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
/** An undelivered entry is overdue this long after it was recorded (a delivery normally takes milliseconds). */
const DEFAULT_DUE_MS = 5_000;

/** Per stage, the stages ranked above it, as the record script matches them (",a,b,"). */
const RANKED_ABOVE = Object.fromEntries(
  ORDER_STAGES.map((stage) => [
    stage,
    `,${ORDER_STAGES.filter((other) => STAGE_RANK[other] > STAGE_RANK[stage]).join(",")},`,
  ]),
) as Record<OrderStage, string>;

/** What distinguishes one visible state of an order from another. */
function snapshotKey(order: Pick<OrderRecord, "stage" | "confirmations" | "txid" | "payoutReference">) {
  return [order.stage, order.confirmations ?? "", order.txid ?? "", order.payoutReference ?? ""].join("|");
}
const BASELINE_STAGE: OrderStage = "awaiting_payment";
const BASELINE_KEY = snapshotKey({ stage: BASELINE_STAGE });

// Append only when the state differs from the tail (or from the untouched baseline when the log is empty) and does
// not go back: a state ranked below the tail's, or the same stage with fewer confirmations (recorded by an ingest
// that ran beside a later event's), is never appended behind it.
// Returns {appended, pending}: pending = the log holds entries past the delivery cursor (one round trip for both);
// a pending order enters the due set (kept at its first due time while it stays pending).
// Entries are JSON objects that start with {"stage":…,"key":…, so the tail's stage and key are read with a
// pattern and a prefix comparison, not a JSON library: the same script runs on Redis and on local mode's
// in-memory stand-in (which has no cjson).
//   ARGV[1] the entry's head '{"stage":"<stage>","key":<key as a JSON string>,'   ARGV[2] the rest of its fields
//   ARGV[3] '1' when this state is the baseline   ARGV[4] the baseline stage   ARGV[5] TTL   ARGV[6] the stage
//   ARGV[7] '' or a stage the tail must be at (a filled-in earlier stage is appended only right after that one,
//   never behind a later state)   ARGV[8] ',<stage>,…,' the stages ranked above this one   ARGV[9] the order id
//   ARGV[10] when a delivery of it is overdue (ms)   ARGV[11] '' or its confirmations (fewer than the tail's, at the
//   same stage, is behind too)
const RECORD = new LuaScript(`
local length = redis.call('LLEN', KEYS[1])
local cursor = tonumber(redis.call('GET', KEYS[2]) or '0')
local tail = redis.call('LINDEX', KEYS[1], -1)
local tailStage = ARGV[4]
local same = ARGV[3] == '1'
if tail then
  tailStage = string.match(tail, '^{"stage":"([a-z_]+)","key":')
  same = string.sub(tail, 1, #ARGV[1]) == ARGV[1]
end
local behind = string.find(ARGV[8], ',' .. tailStage .. ',', 1, true) ~= nil
if tail and not behind and tailStage == ARGV[6] and ARGV[11] ~= '' then
  local shown = tonumber(string.match(tail, '^{"stage":"[a-z_]+","key":"[a-z_]+|(%d+)|') or '')
  behind = shown ~= nil and shown > tonumber(ARGV[11])
end
if same or behind or (ARGV[7] ~= '' and tailStage ~= ARGV[7]) then
  if length > cursor then
    redis.call('ZADD', KEYS[3], 'NX', ARGV[10], ARGV[9])
    return {0, 1}
  end
  return {0, 0}
end
local notify = 'false'
if tailStage ~= ARGV[6] then notify = 'true' end
local entry = ARGV[1] .. '"seq":' .. (length + 1) .. ',"notify":' .. notify .. ',"from":"' .. tailStage .. '",' .. ARGV[2] .. '}'
redis.call('RPUSH', KEYS[1], entry)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
redis.call('ZADD', KEYS[3], 'NX', ARGV[10], ARGV[9])
return {1, 1}
`);

// The cursor, the entries after it and the sending mark, in one round trip.
const PENDING = new LuaScript(`
local cursor = tonumber(redis.call('GET', KEYS[2]) or '0')
return {cursor, redis.call('LRANGE', KEYS[1], cursor, -1), tonumber(redis.call('GET', KEYS[3]) or '0')}
`);

// The cursor only moves forward; moving it settles the entry being sent, and an order whose cursor reached the end
// of its log leaves the due set.
const ADVANCE = new LuaScript(`
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local cursor = math.max(current, tonumber(ARGV[1]))
if cursor > current then redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2])) end
redis.call('DEL', KEYS[2])
if cursor >= redis.call('LLEN', KEYS[3]) then redis.call('ZREM', KEYS[4], ARGV[3]) end
return 1
`);

// Overdue orders, each pushed ARGV[2] ms further out as it is taken, so one sweep (of any process) takes it at a time.
const TAKE_DUE = new LuaScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local next = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, orderId in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', next, orderId) end
return due
`);

/** A sending mark outlives any delivery; it only has to survive the process that set it. */
const SENDING_TTL_SECONDS = 24 * 3600;

export class Outbox {
  constructor(private readonly redis: Redis) {}

  /**
   * Append the order's current state if the user has not been given it yet. `appended`: it was new;
   * `pending`: some entry (this one or an earlier one) is still undelivered, so a delivery is due.
   */
  async record(
    order: Pick<
      OrderRecord,
      "orderId" | "stage" | "confirmations" | "txid" | "payoutReference" | "failureReason"
    >,
    options: { onlyAfter?: OrderStage; dueAt?: number } = {},
  ): Promise<{ appended: boolean; pending: boolean }> {
    const key = snapshotKey(order);
    const fields = {
      ...(order.confirmations === undefined ? {} : { confirmations: order.confirmations }),
      ...(order.txid ? { txid: order.txid } : {}),
      ...(order.payoutReference ? { payoutReference: order.payoutReference } : {}),
      ...(order.failureReason ? { failureReason: order.failureReason } : {}),
      at: new Date().toISOString(),
    };
    const [appended, pending] = (await RECORD.run(
      this.redis,
      [keys.outbox(order.orderId), keys.outboxCursor(order.orderId), keys.outboxDue()],
      [
        `{"stage":${JSON.stringify(order.stage)},"key":${JSON.stringify(key)},`,
        JSON.stringify(fields).slice(1, -1),
        key === BASELINE_KEY ? "1" : "0",
        BASELINE_STAGE,
        OUTBOX_TTL_SECONDS,
        order.stage,
        options.onlyAfter ?? "",
        RANKED_ABOVE[order.stage],
        order.orderId,
        options.dueAt ?? Date.now() + DEFAULT_DUE_MS,
        order.confirmations === undefined ? "" : String(order.confirmations),
      ],
    )) as [number, number];
    return { appended: appended === 1, pending: pending === 1 };
  }

  /**
   * Entries not yet delivered, oldest first, with the cursor they start at. `sending` is the seq of an entry whose
   * notification was being sent when its delivery stopped without an answer (the process died mid-call), else 0.
   */
  async pending(orderId: string): Promise<{ cursor: number; entries: OutboxEntry[]; sending: number }> {
    const [cursor, raws, sending] = (await PENDING.run(this.redis, [
      keys.outbox(orderId),
      keys.outboxCursor(orderId),
      keys.outboxSending(orderId),
    ])) as [number, string[], number];
    const entries: OutboxEntry[] = [];
    for (const raw of raws) {
      const parsed = outboxEntrySchema.safeParse(JSON.parse(raw));
      if (parsed.success) entries.push(parsed.data);
    }
    return { cursor, entries, sending: Number(sending) };
  }

  /** Note that entry `seq`'s notification is about to be sent (a crash during the send leaves the mark). */
  async markSending(orderId: string, seq: number): Promise<void> {
    await this.redis.set(keys.outboxSending(orderId), seq, "EX", SENDING_TTL_SECONDS);
  }

  /** The send was answered with a refusal or never left: nothing reached the chat, a retry may send it. */
  async clearSending(orderId: string): Promise<void> {
    await this.redis.del(keys.outboxSending(orderId));
  }

  /** Mark entries up to and including `seq` delivered (the cursor only moves forward). */
  async advance(orderId: string, seq: number): Promise<void> {
    await ADVANCE.run(
      this.redis,
      [keys.outboxCursor(orderId), keys.outboxSending(orderId), keys.outbox(orderId), keys.outboxDue()],
      [seq, OUTBOX_TTL_SECONDS, orderId],
    );
  }

  /**
   * Orders whose delivery is overdue at `now` (its process died, or it is waiting on a retry that was due), at most
   * `limit`; each is pushed `leaseMs` further out, so another sweep does not take it again meanwhile.
   */
  async takeDue(now: number, leaseMs: number, limit: number): Promise<string[]> {
    return (await TAKE_DUE.run(this.redis, [keys.outboxDue()], [now, leaseMs, limit])) as string[];
  }

  /** The order's delivery is in other hands (a queued job with its own retries) until `until`. */
  async deferDue(orderId: string, until: number): Promise<void> {
    await this.redis.zadd(keys.outboxDue(), "XX", until, orderId);
  }
}
