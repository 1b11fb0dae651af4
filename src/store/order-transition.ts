import { keys } from "./keys.ts";
import type { LockOptions } from "./locks.ts";
import {
  endedUnpaid,
  isTerminalStage,
  type OrderRecord,
  type OrderStage,
  type OrderTransition,
  STAGE_RANK,
  type TransitionResult,
} from "./order-record.ts";
import { retirement } from "./order-retention.ts";
import { type RecordedStates, readPendingLua, recordLua } from "./outbox.ts";
import { LuaScript } from "./script.ts";
import type { DedupeMark } from "./webhook-dedupe.ts";

/**
 * An order's transition as a rule (monotonic: a stage never moves back, a terminal stage never changes,
 * confirmations only grow) and the scripts that write its outcome (store/orders.ts). The one exception is a
 * cancelled quote that gets paid after all (`revives`). `at`: the change's time on the API's clock.
 */
export function applyTransition(
  order: OrderRecord,
  update: OrderTransition,
  at: string,
): { order: OrderRecord; changed: boolean } {
  const next = { ...order };
  let changed = false;
  const revived = revives(order, update);
  if (update.stage && update.stage !== order.stage) {
    const forward = !isTerminalStage(order.stage) && STAGE_RANK[update.stage] > STAGE_RANK[order.stage];
    // Only a quote nobody paid yet can run out or be dropped.
    const unpaidEnd = !endedUnpaid(update.stage) || order.stage === "awaiting_payment";
    if ((forward && unpaidEnd) || revived) {
      next.stage = update.stage;
      if (update.stage === "cancelled") next.cancelledAt = at;
      changed = true;
    }
  }
  if (update.confirmations !== undefined && update.confirmations > (order.confirmations ?? -1)) {
    if (!isTerminalStage(order.stage) || revived || next.stage === "completed") {
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
}

/** Stages only a payment reaches. */
const PAID_STAGES: ReadonlySet<OrderStage> = new Set(["payment_received", "payout_sent", "completed"]);

/**
 * A cancelled quote is still payable at the provider until its deadline (the API is never told it was dropped), so
 * a stage only a payment reaches moves it on: the money moved, and its owner must see it on a status card. A
 * payout that failed after the payment arrived (`payout_failed`, orders/mapping.ts) proves the payment too. Nothing
 * else moves it: it never expires, and no check of the API brings it back to "waiting for payment".
 */
function revives(order: OrderRecord, update: OrderTransition): boolean {
  if (order.stage !== "cancelled" || !update.stage) return false;
  if (update.stage === "failed") return update.failureReason === "payout_failed";
  return PAID_STAGES.has(update.stage);
}

// The compare-and-set of an order's text; it returns 0 when the text is not the one read.
//   KEYS: the order, the open-orders set, the order's reconcile attempt count, its owner's open quotes (the quote
//   budget, store/quote-budget.ts), the retiring set, the order's hash and quote-id lookups.
//   ARGV: the text read · the new text · TTL · '1' when the new stage is terminal · the order id · '' or the
//   reconciler's next look (ms): moves the order in the open set (if still there) and resets its attempt count ·
//   '1' when the order stops awaiting payment (it leaves its owner's open quotes) · '' or, when it just ended
//   unpaid, when it is dropped (ms): it enters the retiring set, and its lookups get its (short) TTL; or 'revive'
//   when a payment revived it (a cancelled quote paid after all): it leaves the retiring set, its lookups get its
//   full TTL back, and its next look enters the open set its end took it out of · the retiring set's member
const CAS_KEYS = 7;
const CAS_ARGS = 9;
const COMPARE_AND_SET_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
local revive = ARGV[8] == 'revive'
if ARGV[4] == '1' then redis.call('ZREM', KEYS[2], ARGV[5]) end
if ARGV[6] ~= '' then
  if revive then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
  else redis.call('ZADD', KEYS[2], 'XX', ARGV[6], ARGV[5]) end
  redis.call('DEL', KEYS[3])
end
if ARGV[7] == '1' then redis.call('ZREM', KEYS[4], ARGV[5]) end
if ARGV[8] ~= '' then
  if revive then redis.call('ZREM', KEYS[5], ARGV[9]) else redis.call('ZADD', KEYS[5], ARGV[8], ARGV[9]) end
  for i = 6, 7 do
    if redis.call('GET', KEYS[i]) == ARGV[5] then redis.call('EXPIRE', KEYS[i], tonumber(ARGV[3])) end
  end
end`;

/** The compare-and-set's keys and arguments, as above, for writing `order` (as `text`) over `current` (`raw`). */
export function compareAndSetInput(
  current: OrderRecord,
  order: OrderRecord,
  raw: string,
  text: string,
  followUpAt: number | undefined,
): { keys: string[]; args: Array<string | number> } {
  const { ttlSeconds, retireAt, member } = retirement(current, order);
  // A revived order left the open set when it was cancelled: the reconciler follows it again, from now if nobody
  // said when (a change /status found), so a lost webhook still moves it on.
  const nextLook =
    followUpAt ??
    (retireAt === "revive" && !isTerminalStage(order.stage) ? Date.parse(order.updatedAt) : undefined);
  return {
    keys: [
      keys.order(order.orderId),
      keys.ordersOpen(),
      keys.reconcileAttempts(order.orderId),
      keys.userQuotesOpen(order.userId),
      keys.ordersRetiring(),
      keys.orderByHash(order.hash),
      keys.orderByQuote(order.quoteId),
    ],
    args: [
      raw,
      text,
      ttlSeconds,
      isTerminalStage(order.stage) ? "1" : "0",
      order.orderId,
      nextLook ?? "",
      // Once, when it leaves: the slot is taken while the quote awaits payment and never again after.
      current.stage === "awaiting_payment" && order.stage !== "awaiting_payment" ? "1" : "0",
      retireAt,
      member,
    ],
  };
}

/** EVALSHA: a transition happens for every event of every order; the script text need not travel each time. */
export const COMPARE_AND_SET = new LuaScript(`${COMPARE_AND_SET_LUA}
return 1
`);

/**
 * The compare-and-set, then the outbox's record of the states the change shows the user (store/outbox.ts, its keys
 * and arguments after the compare-and-set's), in one script: a transition is never written without its record.
 * Returns 0, or {1, the count appended}.
 */
export const COMPARE_AND_SET_THEN_RECORD = new LuaScript(`${COMPARE_AND_SET_LUA}
${recordLua(CAS_KEYS, CAS_ARGS)}
return {1, appended}
`);

/**
 * COMPARE_AND_SET_THEN_RECORD, then, when it appended states, the delivery's claim (store/delivery-claims.ts
 * `ClaimRequest`): its lock (SET NX PX) and, when that was free, what the delivery reads. Its keys and arguments go
 * between the compare-and-set's and the record's: the lock, the outbox's cursor, the owner's record · the lock's
 * token, its TTL (ms).
 * Returns 0, {1, the count appended}, or {1, the count appended, cursor, entries, sending, the owner's record}.
 */
const claimKey = (i: number) => `KEYS[${CAS_KEYS + i}]`;
const claimArg = (i: number) => `ARGV[${CAS_ARGS + i}]`;
export const COMPARE_AND_SET_RECORD_AND_CLAIM = new LuaScript(`${COMPARE_AND_SET_LUA}
${recordLua(CAS_KEYS + 3, CAS_ARGS + 2)}
if appended > 0 and redis.call('SET', ${claimKey(1)}, ${claimArg(1)}, 'PX', ${claimArg(2)}, 'NX') then
${readPendingLua(claimKey(4), claimKey(2))}
  return {1, appended, cursor, entries, sending, redis.call('GET', ${claimKey(3)})}
end
return {1, appended}
`);

/** How `OrderRepository.transition` writes (store/orders.ts). */
export interface TransitionOptions {
  /** The order's text as just read (getWithRaw), to skip the first read. */
  known?: string | undefined;
  /**
   * When the reconciler should look at the changed order next (ms), if at all: written in the same script as
   * the change, with its attempt count reset (an order that moved is not stuck).
   */
  followUpAt?: (order: OrderRecord) => number | undefined;
  record?: { states: (result: TransitionResult) => RecordedStates; mark?: DedupeMark | undefined };
  /**
   * Take the delivery's claim (with these lock options) in the same script when the change appended states and the
   * order's lock was free (`claim` in the result): the delivery that follows starts without a round trip of its own.
   */
  claim?: LockOptions;
}
