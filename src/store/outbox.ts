import type { Redis } from "ioredis";
import { z } from "zod";
import { keys } from "./keys.ts";
import { ORDER_STAGES, type OrderRecord, type OrderStage, STAGE_RANK } from "./order-record.ts";
import { LuaScript } from "./script.ts";
import type { DedupeMark } from "./webhook-dedupe.ts";

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

// Appends states in one round trip, each only when it differs from the tail (or from the untouched baseline when the
// log is empty) and does not go back: a state ranked below the tail's, or the same stage with fewer confirmations
// (recorded by an ingest that ran beside a later event's), is never appended behind it. Returns how many were
// appended; an order that got one enters the due set (kept at its first due time while it stays undelivered: an
// entry recorded earlier and not delivered is already there).
// Entries are JSON objects that start with {"stage":…,"key":…, then "seq":…,"notify":…, so the tail's stage, key and
// seq (the log's length) are read with patterns and a prefix comparison, not a JSON library: the same script runs on
// Redis and on local mode's in-memory stand-in (which has no cjson); a key's own quotes are escaped, so no pattern
// matches inside it. With KEYS[3], the webhook's dedupe mark is set in the same script: the event that caused these
// states is remembered exactly when they are recorded (store/webhook-dedupe.ts).
//   KEYS: the log, the due set, [the dedupe mark].
//   ARGV[1] order id   ARGV[2] TTL   ARGV[3] the baseline stage   ARGV[4] when a delivery is overdue (ms)
//   ARGV[5] the dedupe mark's TTL ('' without one)
//   then per state, 7 values: the entry's head '{"stage":"<stage>","key":<key as a JSON string>,' · the rest of its
//   fields · '1' when it is the baseline · its stage · '' or a stage the tail must be at (a filled-in earlier stage
//   is appended only right after that one) · ',<stage>,…,' the stages ranked above it · '' or its confirmations
// recordLua(k, a) is that script's body with its keys after KEYS[k] and its arguments after ARGV[a] (the states
// last), for this file's RECORD and for the order transition that records in the same script
// (store/order-transition.ts); it leaves the count appended in the local `appended`.
export function recordLua(k: number, a: number): string {
  const key = (i: number) => `KEYS[${k + i}]`;
  const arg = (i: number) => `ARGV[${a + i}]`;
  return `local tail = redis.call('LINDEX', ${key(1)}, -1)
local length = 0
local tailStage = ${arg(3)}
if tail then
  length = tonumber(string.match(tail, '"seq":(%d+),"notify":'))
  tailStage = string.match(tail, '^{"stage":"([a-z_]+)","key":')
end
local appended = 0
for i = ${a + 6}, #ARGV, 7 do
  local head, stage, onlyAfter, confirmations = ARGV[i], ARGV[i + 3], ARGV[i + 4], ARGV[i + 6]
  local same = ARGV[i + 2] == '1'
  if tail then same = string.sub(tail, 1, #head) == head end
  local behind = string.find(ARGV[i + 5], ',' .. tailStage .. ',', 1, true) ~= nil
  if tail and not behind and tailStage == stage and confirmations ~= '' then
    local shown = tonumber(string.match(tail, '^{"stage":"[a-z_]+","key":"[a-z_]+|(%d+)|') or '')
    behind = shown ~= nil and shown > tonumber(confirmations)
  end
  if not (same or behind or (onlyAfter ~= '' and tailStage ~= onlyAfter)) then
    local notify = 'false'
    if tailStage ~= stage then notify = 'true' end
    length = length + 1
    tail = head .. '"seq":' .. length .. ',"notify":' .. notify .. ',"from":"' .. tailStage .. '",' .. ARGV[i + 1] .. '}'
    redis.call('RPUSH', ${key(1)}, tail)
    if length == 1 then redis.call('EXPIRE', ${key(1)}, tonumber(${arg(2)})) end
    tailStage = stage
    appended = appended + 1
  end
end
if appended > 0 then redis.call('ZADD', ${key(2)}, 'NX', ${arg(4)}, ${arg(1)}) end
if ${key(3)} then redis.call('SET', ${key(3)}, '1', 'EX', tonumber(${arg(5)})) end`;
}

const RECORD = new LuaScript(`${recordLua(0, 0)}
return appended
`);

/**
 * Lua that reads an order's cursor, the entries after it and the seq being sent into the locals `cursor`, `entries`
 * and `sending` (for this file's PENDING and the delivery claim's script, store/delivery-claims.ts).
 */
export function readPendingLua(outboxKey: string, cursorKey: string): string {
  return `
local value = redis.call('GET', ${cursorKey}) or '0'
local cursor = tonumber(string.match(value, '^(%d+)'))
local entries = redis.call('LRANGE', ${outboxKey}, cursor, -1)
local sending = tonumber(string.match(value, ':(%d+)$') or '0')`;
}

/** What `readPendingLua` read, as the delivery sees it. */
export interface PendingEntries {
  cursor: number;
  entries: OutboxEntry[];
  /** The seq of an entry whose notification was being sent when its delivery stopped without an answer, else 0. */
  sending: number;
}

/** `readPendingLua`'s three values as a script returned them; an entry that does not parse is skipped. */
export function parsePending(cursor: unknown, raws: unknown, sending: unknown): PendingEntries {
  const entries: OutboxEntry[] = [];
  for (const raw of raws as string[]) {
    const parsed = outboxEntrySchema.safeParse(JSON.parse(raw));
    if (parsed.success) entries.push(parsed.data);
  }
  return { cursor: Number(cursor), entries, sending: Number(sending) };
}

// The cursor, the entries after it and the seq being sent, in one round trip.
const PENDING = new LuaScript(`${readPendingLua("KEYS[1]", "KEYS[2]")}
return {cursor, entries, sending}
`);

// The cursor only moves forward; writing it clears the mark of the entry being sent, and an order whose cursor
// reached the end of its log leaves the due set. With KEYS[4] and ARGV[4], a delivery's last move also releases its
// order lock (when it still holds it), in the same round trip.
const ADVANCE = new LuaScript(`
local value = redis.call('GET', KEYS[1]) or '0'
local current = tonumber(string.match(value, '^(%d+)'))
local cursor = math.max(current, tonumber(ARGV[1]))
if cursor > current or value ~= tostring(current) then
  redis.call('SET', KEYS[1], tostring(cursor), 'EX', tonumber(ARGV[2]))
end
if cursor >= redis.call('LLEN', KEYS[2]) then redis.call('ZREM', KEYS[3], ARGV[3]) end
if ARGV[4] and redis.call('GET', KEYS[4]) == ARGV[4] then redis.call('DEL', KEYS[4]) end
return 1
`);

type RecordedState = Pick<
  OrderRecord,
  "orderId" | "stage" | "confirmations" | "txid" | "payoutReference" | "failureReason"
>;

/** States to record for one order, oldest first; `onlyAfter`: appended only right after that stage. */
export type RecordedStates = Array<{
  state: Omit<RecordedState, "orderId">;
  onlyAfter?: OrderStage | undefined;
}>;

interface RecordOptions {
  /** When the delivery is overdue (ms), if one is due. */
  dueAt?: number;
  /** The dedupe mark of the webhook these states come from. */
  mark?: DedupeMark | undefined;
}

/** The record script's keys and arguments (recordLua's numbering) for these states. */
export function recordCall(
  orderId: string,
  states: RecordedStates,
  options: RecordOptions = {},
): { keys: string[]; args: Array<string | number> } {
  const at = new Date().toISOString();
  const { dueAt = Date.now() + DEFAULT_DUE_MS, mark } = options;
  const args: Array<string | number> = [
    orderId,
    OUTBOX_TTL_SECONDS,
    BASELINE_STAGE,
    dueAt,
    mark ? mark.ttlSeconds : "",
  ];
  for (const { state, onlyAfter } of states) {
    const key = snapshotKey(state);
    const fields = {
      ...(state.confirmations === undefined ? {} : { confirmations: state.confirmations }),
      ...(state.txid ? { txid: state.txid } : {}),
      ...(state.payoutReference ? { payoutReference: state.payoutReference } : {}),
      ...(state.failureReason ? { failureReason: state.failureReason } : {}),
      at,
    };
    args.push(
      `{"stage":${JSON.stringify(state.stage)},"key":${JSON.stringify(key)},`,
      JSON.stringify(fields).slice(1, -1),
      key === BASELINE_KEY ? "1" : "0",
      state.stage,
      onlyAfter ?? "",
      RANKED_ABOVE[state.stage],
      state.confirmations === undefined ? "" : String(state.confirmations),
    );
  }
  const scriptKeys = [keys.outbox(orderId), keys.outboxDue()];
  return { keys: mark ? [...scriptKeys, mark.key] : scriptKeys, args };
}

export class Outbox {
  constructor(private readonly redis: Redis) {}

  /** Append the order's current state if the user has not been given it yet; true when it was (a delivery is due). */
  async record(
    order: RecordedState,
    options: { onlyAfter?: OrderStage; dueAt?: number } = {},
  ): Promise<boolean> {
    const appended = await this.recordAll(order.orderId, [{ state: order, onlyAfter: options.onlyAfter }], {
      dueAt: options.dueAt,
    });
    return appended === 1;
  }

  /**
   * `record` for several states of one order, in order and in one round trip; how many were appended. `mark`: the
   * dedupe mark of the webhook these states come from, set in the same script (whether or not any was appended).
   */
  async recordAll(orderId: string, states: RecordedStates, options: RecordOptions = {}): Promise<number> {
    const call = recordCall(orderId, states, options);
    return Number(await RECORD.run(this.redis, call.keys, call.args));
  }

  /**
   * Entries not yet delivered, oldest first, with the cursor they start at. `sending` is the seq of an entry whose
   * notification was being sent when its delivery stopped without an answer (the process died mid-call), else 0.
   */
  async pending(orderId: string): Promise<PendingEntries> {
    const [cursor, raws, sending] = (await PENDING.run(this.redis, [
      keys.outbox(orderId),
      keys.outboxCursor(orderId),
    ])) as unknown[];
    return parsePending(cursor, raws, sending);
  }

  /**
   * Note that entry `seq`'s notification is about to be sent (a crash during the send leaves the mark). Entries are
   * delivered in order under the order's lock, so the cursor stands just before it.
   */
  async markSending(orderId: string, seq: number): Promise<void> {
    await this.redis.set(keys.outboxCursor(orderId), `${seq - 1}:${seq}`, "EX", OUTBOX_TTL_SECONDS);
  }

  /** The send of entry `seq` was answered with a refusal or never left: nothing reached the chat, a retry may send it. */
  async clearSending(orderId: string, seq: number): Promise<void> {
    await this.redis.set(keys.outboxCursor(orderId), String(seq - 1), "EX", OUTBOX_TTL_SECONDS);
  }

  /**
   * Mark entries up to and including `seq` delivered (the cursor only moves forward). `unlock`: the order lock this
   * delivery holds, released in the same script (its last move).
   */
  async advance(orderId: string, seq: number, unlock?: { key: string; token: string }): Promise<void> {
    const base = [keys.outboxCursor(orderId), keys.outbox(orderId), keys.outboxDue()];
    await ADVANCE.run(
      this.redis,
      unlock ? [...base, unlock.key] : base,
      unlock ? [seq, OUTBOX_TTL_SECONDS, orderId, unlock.token] : [seq, OUTBOX_TTL_SECONDS, orderId],
    );
  }

  /** Orders whose delivery is overdue at `now`, at most `limit`, with the time each became due (ms). */
  async overdue(now: number, limit: number): Promise<Array<{ orderId: string; dueAt: number }>> {
    const flat = await this.redis.zrangebyscore(
      keys.outboxDue(),
      "-inf",
      now,
      "WITHSCORES",
      "LIMIT",
      0,
      limit,
    );
    const due: Array<{ orderId: string; dueAt: number }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) due.push({ orderId: flat[i]!, dueAt: Number(flat[i + 1]) });
    return due;
  }

  /** The order's delivery is in other hands (a queued job with its own retries) until `until`. */
  async deferDue(orderId: string, until: number): Promise<void> {
    await this.redis.zadd(keys.outboxDue(), "XX", until, orderId);
  }
}
