import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";

/**
 * The durable Telegram update inbox (src/updates drives it). An update is recorded once per update_id (a marker
 * kept for a day, Telegram's own retention), queued on its chat's list in arrival order, and leaves the list only
 * when the holder of the chat's lease acknowledges it. One lease per chat across every process: whoever holds it
 * handles that chat's updates one at a time. A lease names its owner (a ProcessRegistry id) and carries a fencing
 * token; a lease whose owner's heartbeat (`process:<id>`, store/processes.ts) has lapsed (the process died) can be
 * taken over at once, and one that was never released expires after `leaseMs` (a live but stuck holder). Only the
 * current token can acknowledge.
 *
 * List entries are "<update_id>\n<update JSON>" so the scripts can read the id without a JSON parser (the Lua of
 * ioredis-mock, local mode's Redis stand-in, has no cjson).
 */

/** A chat's head update handed to the lease holder. */
export interface Claim {
  chat: string;
  /** The fencing token of the lease (increases with every grant, across all chats). */
  token: number;
  updateId: number;
  /** The update's JSON as recorded. */
  json: string;
  /** How many times this update has been handed out, this time included. */
  attempt: number;
}

const SEEN_TTL_SECONDS = 24 * 3600;

/** KEYS: seen marker, chat list, ready set. ARGV: entry, chat, seen TTL (s). 1 recorded, 0 already seen. */
const RECORD = new LuaScript(`
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
const ACQUIRE = new LuaScript(`${acquireFunction(
  { lease: "KEYS[1]", queue: "KEYS[2]", ready: "KEYS[3]", fence: "KEYS[4]", tries: "KEYS[5]" },
  { owner: "ARGV[1]", leaseMs: "ARGV[2]", alivePrefix: "ARGV[3]", chat: "ARGV[4]" },
)}
return acquire()`);

/**
 * RECORD, then ACQUIRE for the chat (a process that will handle the chat at once saves a round trip).
 * KEYS: seen marker, chat list, ready set, lease, fence counter, tries hash.
 * ARGV: entry, chat, seen TTL (s), owner, lease ms, liveness key prefix.
 * {0} already seen (no lease taken); {1, 0} recorded, the lease held by a live owner; {1, token, entry, attempt}
 * recorded and granted.
 */
const RECORD_AND_ACQUIRE = new LuaScript(`${acquireFunction(
  { lease: "KEYS[4]", queue: "KEYS[2]", ready: "KEYS[3]", fence: "KEYS[5]", tries: "KEYS[6]" },
  { owner: "ARGV[4]", leaseMs: "ARGV[5]", alivePrefix: "ARGV[6]", chat: "ARGV[2]" },
)}
if not redis.call('SET', KEYS[1], '1', 'EX', ARGV[3], 'NX') then return {0} end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
local granted = acquire()
return {1, granted[1], granted[2], granted[3]}`);

/**
 * KEYS: lease, chat list, ready set, tries hash, recorded-calls hash. ARGV: owner|token, update id, chat, lease ms.
 * {0} when the lease is no longer ours (nothing changes); {1} when the chat is drained (lease released);
 * {1, next entry, attempt} when more is queued (lease renewed).
 */
const ACK = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
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
const RENEW = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`);

/** KEYS: lease. ARGV: owner|token. */
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** KEYS: chat list, ready set, tries hash, recorded-calls hash. ARGV: entry, chat, update id (no-lease mode). */
const REMOVE = new LuaScript(`
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('DEL', KEYS[4])
if redis.call('LLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[2]) end
return 1
`);

function inboxEntry(updateId: number, json: string): string {
  return `${updateId}\n${json}`;
}

function parseEntry(entry: string): { updateId: number; json: string } {
  const cut = entry.indexOf("\n");
  return { updateId: Number(entry.slice(0, cut)), json: entry.slice(cut + 1) };
}

export class UpdateRepository {
  /** The heartbeat key prefix as the server sees it (the script builds the lease owner's key from it). */
  private readonly alivePrefix: string;

  constructor(
    private readonly redis: Redis,
    private readonly leaseMs = 120_000,
  ) {
    this.alivePrefix = `${redis.options.keyPrefix ?? ""}${keys.process("")}`;
  }

  /** Durably queue an update on its chat; false when this update_id was already recorded (a redelivery). */
  async record(chat: string, updateId: number, json: string): Promise<boolean> {
    const recorded = await RECORD.run(
      this.redis,
      [keys.updateSeen(updateId), keys.updateQueue(chat), keys.updatesReady()],
      [inboxEntry(updateId, json), chat, SEEN_TTL_SECONDS],
    );
    return recorded === 1;
  }

  /**
   * `record`, then `acquire` for `owner` in the same round trip: `claim` is the chat's head update (this one, or one
   * queued before it) when the lease was free; none when the update was already recorded or a live process (this
   * one included) holds the lease.
   */
  async recordAndAcquire(
    chat: string,
    updateId: number,
    json: string,
    owner: string,
  ): Promise<{ fresh: boolean; claim?: Claim }> {
    const answer = (await RECORD_AND_ACQUIRE.run(
      this.redis,
      [
        keys.updateSeen(updateId),
        keys.updateQueue(chat),
        keys.updatesReady(),
        keys.updateLease(chat),
        keys.updateFence(),
        keys.updateTries(),
      ],
      [inboxEntry(updateId, json), chat, SEEN_TTL_SECONDS, owner, this.leaseMs, this.alivePrefix],
    )) as [number, number?, string?, number?];
    const [recorded, token, entry, attempt] = answer;
    if (recorded !== 1) return { fresh: false };
    if (!token || token <= 0 || entry === undefined) return { fresh: true };
    return {
      fresh: true,
      claim: { chat, token: Number(token), ...parseEntry(entry), attempt: Number(attempt) },
    };
  }

  /** Take the chat's lease and its head update; undefined when another live process holds it or nothing waits. */
  async acquire(chat: string, owner: string): Promise<Claim | undefined> {
    const answer = (await ACQUIRE.run(
      this.redis,
      [
        keys.updateLease(chat),
        keys.updateQueue(chat),
        keys.updatesReady(),
        keys.updateFence(),
        keys.updateTries(),
      ],
      [owner, this.leaseMs, this.alivePrefix, chat],
    )) as [number, string?, number?];
    const [token, entry, attempt] = answer;
    if (token <= 0 || entry === undefined) return undefined;
    return { chat, token: Number(token), ...parseEntry(entry), attempt: Number(attempt) };
  }

  /**
   * Acknowledge the claimed update (it leaves the inbox) and get the chat's next one under the same lease.
   * `undefined` next: the chat is drained and the lease released. Throws StaleLeaseError when the lease was taken
   * over meanwhile: nothing is acknowledged (the new holder handles the update again).
   */
  async ack(claim: Claim, owner: string): Promise<Claim | undefined> {
    const answer = (await ACK.run(
      this.redis,
      [
        keys.updateLease(claim.chat),
        keys.updateQueue(claim.chat),
        keys.updatesReady(),
        keys.updateTries(),
        keys.updateCalls(claim.updateId),
      ],
      [`${owner}|${claim.token}`, String(claim.updateId), claim.chat, this.leaseMs],
    )) as [number, string?, number?];
    const [ok, entry, attempt] = answer;
    if (ok !== 1) throw new StaleLeaseError(claim.chat, claim.token);
    if (entry === undefined) return undefined;
    return { chat: claim.chat, token: claim.token, ...parseEntry(entry), attempt: Number(attempt) };
  }

  /** Extend our lease while a long handler runs; false when it is no longer ours. */
  async renew(claim: Claim, owner: string): Promise<boolean> {
    return (
      (await RENEW.run(
        this.redis,
        [keys.updateLease(claim.chat)],
        [`${owner}|${claim.token}`, this.leaseMs],
      )) === 1
    );
  }

  /** Give the lease back without acknowledging (shutdown, or a handler failure to retry later). */
  async release(claim: Claim, owner: string): Promise<void> {
    await RELEASE.run(this.redis, [keys.updateLease(claim.chat)], [`${owner}|${claim.token}`]);
  }

  /** Without leases (UPDATE_LEASE=off): drop one handled update from its chat's list. */
  async remove(chat: string, updateId: number, json: string): Promise<void> {
    await REMOVE.run(
      this.redis,
      [keys.updateQueue(chat), keys.updatesReady(), keys.updateTries(), keys.updateCalls(updateId)],
      [inboxEntry(updateId, json), chat, String(updateId)],
    );
  }

  /** Chats with queued updates (the orphan sweep; small: a chat leaves the set when drained). */
  readyChats(): Promise<string[]> {
    return this.redis.smembers(keys.updatesReady());
  }

  /** The Telegram calls recorded while handling `updateId` (sequence number → recorded answer). */
  async recordedCalls(updateId: number): Promise<Map<number, string>> {
    const all = await this.redis.hgetall(keys.updateCalls(updateId));
    return new Map(Object.entries(all).map(([seq, value]) => [Number(seq), value]));
  }

  /** Keep one call's answer until the update is acknowledged (or a day, if it never is). */
  async recordCall(updateId: number, seq: number, answer: string, first: boolean): Promise<void> {
    const key = keys.updateCalls(updateId);
    // The lifetime is set with an attempt's first record; acknowledging the update deletes the hash anyway. One
    // round trip without MULTI: both commands leave in one write, and nothing reads the hash between them.
    if (first)
      await this.redis.pipeline().hset(key, String(seq), answer).expire(key, SEEN_TTL_SECONDS).exec();
    else await this.redis.hset(key, String(seq), answer);
  }

  /** Queued updates of one chat (tests, diagnostics). */
  async queued(chat: string): Promise<number> {
    return this.redis.llen(keys.updateQueue(chat));
  }
}

export class StaleLeaseError extends Error {
  constructor(
    readonly chat: string,
    readonly token: number,
  ) {
    super(`the lease of chat ${chat} (token ${token}) is no longer held`);
    this.name = "StaleLeaseError";
  }
}
