import { LuaScript } from "./script.ts";
import { firstReadsLua } from "./update-reads.ts";

/**
 * The update inbox's Lua scripts (store/updates.ts runs them). List entries are "<update_id>\n<update JSON>", so
 * the scripts read the id without a JSON parser.
 */

export const SEEN_TTL_SECONDS = 24 * 3600;

/** KEYS: seen marker, chat list, ready set. ARGV: entry, chat, seen TTL (s). 1 recorded, 0 already seen. */
export const RECORD = new LuaScript(`
if not redis.call('SET', KEYS[1], '1', 'EX', ARGV[3], 'NX') then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
return 1
`);

/**
 * The lease grant, as a Lua function over named key and argument references (the plain acquire and the
 * record-and-acquire scripts number them differently). {token, entry, attempt} when granted; {0} when a live owner
 * holds it (this process included); {-1} when the chat has nothing queued.
 */
function acquireFunction(
  k: { lease: string; queue: string; ready: string; fence: string; tries: string },
  a: {
    owner: string;
    leaseMs: string;
    alivePrefix: string;
    chat: string;
  },
): string {
  return `
local function acquire()
  local current = redis.call('GET', ${k.lease})
  if current then
    local owner = string.match(current, '^(.*)|')
    if owner == ${a.owner} or redis.call('EXISTS', ${a.alivePrefix} .. owner) == 1 then return {0} end
  end
  local head = redis.call('LINDEX', ${k.queue}, 0)
  if not head then
    if current then redis.call('DEL', ${k.lease}) end
    redis.call('SREM', ${k.ready}, ${a.chat})
    return {-1}
  end
  local token = redis.call('INCR', ${k.fence})
  redis.call('SET', ${k.lease}, ${a.owner} .. '|' .. string.format('%d', token), 'PX', ${a.leaseMs})
  local attempt = redis.call('HINCRBY', ${k.tries}, string.match(head, '^(%d+)'), 1)
  return {token, head, attempt}
end`;
}

/** KEYS: lease, chat list, ready set, fence counter, tries hash. ARGV: owner, lease ms, liveness key prefix, chat. */
export const ACQUIRE = new LuaScript(`${acquireFunction(
  { lease: "KEYS[1]", queue: "KEYS[2]", ready: "KEYS[3]", fence: "KEYS[4]", tries: "KEYS[5]" },
  { owner: "ARGV[1]", leaseMs: "ARGV[2]", alivePrefix: "ARGV[3]", chat: "ARGV[4]" },
)}
return acquire()`);

/** RECORD, then ACQUIRE for the chat, up to the lease's answer in `granted` (the two scripts below go on from it). */
const RECORD_THEN_ACQUIRE = `${acquireFunction(
  { lease: "KEYS[4]", queue: "KEYS[2]", ready: "KEYS[3]", fence: "KEYS[5]", tries: "KEYS[6]" },
  { owner: "ARGV[4]", leaseMs: "ARGV[5]", alivePrefix: "ARGV[6]", chat: "ARGV[2]" },
)}
if not redis.call('SET', KEYS[1], '1', 'EX', ARGV[3], 'NX') then return {0} end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
local granted = acquire()`;

/**
 * RECORD, then ACQUIRE for the chat (a process that will handle the chat at once saves a round trip).
 * KEYS: seen marker, chat list, ready set, lease, fence counter, tries hash.
 * ARGV: entry, chat, seen TTL (s), owner, lease ms, liveness key prefix.
 * {0} already seen (no lease taken); {1, 0} recorded, the lease held by a live owner; {1, token, entry, attempt}
 * recorded and granted.
 */
export const RECORD_AND_ACQUIRE = new LuaScript(`${RECORD_THEN_ACQUIRE}
return {1, granted[1], granted[2], granted[3]}`);

/**
 * RECORD_AND_ACQUIRE, then, when the lease is granted with this very update at the head of its chat, the update's
 * first reads (store/update-reads.ts `firstReadsLua`: its flood count, the user, the session, the keys read ahead),
 * so the process that starts the update at once has them without another round trip. Built per count of keys read
 * ahead (the reply is a table constructor: local mode's stand-in cannot build one by index).
 * KEYS: RECORD_AND_ACQUIRE's, then limit window, user, session, …read ahead.
 * ARGV: RECORD_AND_ACQUIRE's, then window ms, limit (0: not limited).
 * RECORD_AND_ACQUIRE's answers; when it granted this update, {1, token, entry, attempt, verdict, user, session,
 * …read ahead}.
 */
export function recordAcquireAndRead(readAhead: number): LuaScript {
  const { prelude, values } = firstReadsLua(
    readAhead,
    (index) => `KEYS[${6 + index}]`,
    (index) => `ARGV[${6 + index}]`,
  );
  return new LuaScript(`${RECORD_THEN_ACQUIRE}
if granted[1] > 0 and granted[2] == ARGV[1] then
${prelude}
  return {1, granted[1], granted[2], granted[3], ${values}}
end
return {1, granted[1], granted[2], granted[3]}`);
}

/**
 * KEYS: lease, chat list, ready set, tries hash, recorded-calls hash, then the keys of the chat state the update
 * wrote (store/held-writes.ts). ARGV: owner|token, update id, chat, lease ms, then per state key its lifetime in
 * seconds (0: none, -1: delete) and its value.
 * {0} when the lease is no longer ours (nothing changes, the state included); {1} when the chat is drained (lease
 * released); {1, next entry, attempt} when more is queued (lease renewed).
 */
export const ACK = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
for i = 6, #KEYS do
  local ttl = tonumber(ARGV[2 * i - 7])
  if ttl < 0 then redis.call('DEL', KEYS[i])
  elseif ttl > 0 then redis.call('SET', KEYS[i], ARGV[2 * i - 6], 'EX', ttl)
  else redis.call('SET', KEYS[i], ARGV[2 * i - 6]) end
end
local head = redis.call('LINDEX', KEYS[2], 0)
if head and string.sub(head, 1, #ARGV[2] + 1) == ARGV[2] .. '\\n' then redis.call('LPOP', KEYS[2]) end
redis.call('HDEL', KEYS[4], ARGV[2])
redis.call('DEL', KEYS[5])
local nxt = redis.call('LINDEX', KEYS[2], 0)
if not nxt then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[3], ARGV[3])
  return {1}
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, nxt, redis.call('HINCRBY', KEYS[4], string.match(nxt, '^(%d+)'), 1)}
`);

/** KEYS: lease. ARGV: owner|token, lease ms. 1 when still ours (renewed). */
export const RENEW = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`);

/** KEYS: lease. ARGV: owner|token. */
export const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** KEYS: chat list, ready set, tries hash, recorded-calls hash. ARGV: entry, chat, update id (no-lease mode). */
export const REMOVE = new LuaScript(`
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('DEL', KEYS[4])
if redis.call('LLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[2]) end
return 1
`);
