import { isTerminalStage, type OrderRecord, type OrderTransition, STAGE_RANK } from "./order-record.ts";
import { readPendingLua, recordLua } from "./outbox.ts";
import { LuaScript } from "./script.ts";

/**
 * An order's transition as a rule (monotonic: a stage never moves back, a terminal stage never changes,
 * confirmations only grow) and the scripts that write its outcome (store/orders.ts).
 */
export function applyTransition(
  order: OrderRecord,
  update: OrderTransition,
): { order: OrderRecord; changed: boolean } {
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
}

// The compare-and-set of an order's text; it returns 0 when the text is not the one read.
//   KEYS: the order, the open-orders set, the order's reconcile attempt count.
//   ARGV: the text read · the new text · TTL · '1' when the new stage is terminal · the order id · '' or the
//   reconciler's next look (ms): moves the order in the open set (if still there) and resets its attempt count
const COMPARE_AND_SET_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
if ARGV[4] == '1' then redis.call('ZREM', KEYS[2], ARGV[5]) end
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[6], ARGV[5])
  redis.call('DEL', KEYS[3])
end`;

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
${recordLua(3, 6)}
return {1, appended}
`);

/**
 * COMPARE_AND_SET_THEN_RECORD, then, when it appended states, the delivery's claim (store/delivery-claims.ts
 * `ClaimRequest`): its lock (SET NX PX) and, when that was free, what the delivery reads. Its keys and arguments go
 * between the compare-and-set's and the record's:
 *   KEYS[4..6] the lock, the outbox's cursor, the owner's record   ARGV[7..8] the lock's token, its TTL (ms).
 * Returns 0, {1, the count appended}, or {1, the count appended, cursor, entries, sending, the owner's record}.
 */
export const COMPARE_AND_SET_RECORD_AND_CLAIM = new LuaScript(`${COMPARE_AND_SET_LUA}
${recordLua(6, 8)}
if appended > 0 and redis.call('SET', KEYS[4], ARGV[7], 'PX', ARGV[8], 'NX') then
${readPendingLua("KEYS[7]", "KEYS[5]")}
  return {1, appended, cursor, entries, sending, redis.call('GET', KEYS[6])}
end
return {1, appended}
`);
