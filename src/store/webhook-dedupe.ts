import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { lockToken } from "./locks.ts";
import type { OrderText } from "./order-record.ts";
import type { ProcessRegistry } from "./processes.ts";
import { deleteIfEquals, LuaScript } from "./script.ts";

/**
 * A webhook's dedupe mark, set by the script that records the event's effect (OrderRepository.transition,
 * Outbox.recordAll). It overwrites the delivery's claim (same key), so the claim becomes the long-lived mark exactly
 * when the effect is recorded.
 */
export interface DedupeMark {
  key: string;
  ttlSeconds: number;
}

/**
 * What a delivery found when it tried to claim its event: `claimed` (this delivery handles it; `order` is the text of
 * the order the event names, null when absent), `seen` (recorded before: a repeat), or `busy` (another delivery of
 * the same event holds the claim and has not recorded it yet).
 */
export type DedupeClaim =
  | { state: "claimed"; token: string; order?: OrderText }
  | { state: "seen" }
  | { state: "busy" };

/** The value of a recorded event's mark; a claim holds `<process id>:<random>` instead (store/locks.ts lockToken). */
const SEEN = "1";

// One atomic step per delivery: take the event's key with a short-lived claim (SET NX PX) and, only when it was free,
// read the order the event names (ingest's first read) in the same round trip. Otherwise say whether the key holds
// the recorded mark (a repeat) or another delivery's claim (its value, naming its process).
//   KEYS: the dedupe key[, the order]   ARGV: the claim's token, its TTL (ms), the recorded mark's value
//   → {1[, the order's text]} claimed · {0} seen · {2, the claim's value} busy
const CLAIM = new LuaScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  if KEYS[2] then return {1, redis.call('GET', KEYS[2])} end
  return {1}
end
local value = redis.call('GET', KEYS[1])
if value == ARGV[3] then return {0} end
return {2, value}
`);

// The claim of a dead process taken over: only the very claim seen busy, and only while its process's heartbeat is
// gone (of two deliveries racing for it, one wins); the order is read as CLAIM reads it.
//   KEYS: the dedupe key, the claimant's heartbeat[, the order]   ARGV: the claim seen, the new token, its TTL (ms)
//   → {1[, the order's text]} taken · {0} not
const TAKE_OVER = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 1 then return {0} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if KEYS[3] then return {1, redis.call('GET', KEYS[3])} end
return {1}
`);

/**
 * Webhooks already recorded, by the digest of their identity (src/events/dedupe.ts says what makes two deliveries
 * the same event), and the claims of those being handled. Concurrent deliveries of one event race for one key: one
 * claims it, the others see it taken. A claim names its process, so one left by a process that died mid-handling is
 * taken over by the sender's retry as soon as that process's heartbeat lapses (ProcessRegistry, a few seconds); its
 * TTL is the last resort (no registry, or Redis lost the heartbeat).
 */
export class EventDeduper {
  constructor(
    private readonly redis: Redis,
    /** Longer than any sender's retry window (the sandbox retries for about an hour). */
    private readonly ttlSeconds = 7 * 24 * 3600,
    /** Far longer than handling takes (Redis work only); how long a dead claimant holds its event at worst. */
    private readonly claimMs = 30_000,
  ) {}

  /**
   * Claim an event for this delivery; with `orderId` the order's text is read in the same command when claimed.
   * `processes`: this process's registry, named in the claim, so another process can take it over once this one is
   * dead (and this one can take over the claims of the dead).
   */
  async claim(digest: string, orderId?: string, processes?: ProcessRegistry): Promise<DedupeClaim> {
    const token = lockToken(processes);
    const key = keys.dedupe(digest);
    const order = orderId === undefined ? [] : [keys.order(orderId)];
    const [state, value] = (await CLAIM.run(this.redis, [key, ...order], [token, this.claimMs, SEEN])) as [
      number,
      unknown,
    ];
    if (state === 1) return claimed(token, orderId, value);
    if (state === 0) return { state: "seen" };
    const owner = typeof value === "string" ? value.split(":", 1)[0] : undefined;
    if (!processes || !owner || owner === "anonymous" || owner === processes.id) return { state: "busy" };
    const [taken, text] = (await TAKE_OVER.run(
      this.redis,
      [key, processes.keyOf(owner), ...order],
      [value as string, token, this.claimMs],
    )) as [number, unknown];
    return taken === 1 ? claimed(token, orderId, text) : { state: "busy" };
  }

  /**
   * Give a claim back when its event could not be recorded, so the sender's retry (or a concurrent delivery waiting
   * on it) handles the event. Deleted only while it is still this claim: a mark recorded meanwhile stays.
   */
  async release(digest: string, token: string): Promise<void> {
    await deleteIfEquals(this.redis, keys.dedupe(digest), token);
  }

  /**
   * Remember an identity once its event is queued (or handled without an order effect). Recorded only after the
   * queue has it: a process killed between the two leaves its claim, which the sender's retry takes over, so the
   * event is queued again (the job id makes that add a no-op while the job exists, and ingest is idempotent after it
   * ran).
   */
  async remember(digest: string): Promise<void> {
    const { key, ttlSeconds } = this.mark(digest);
    await this.redis.set(key, SEEN, "EX", ttlSeconds);
  }

  /** `remember`'s write, for a script that records the event's effect to make in the same round trip. */
  mark(digest: string): DedupeMark {
    return { key: keys.dedupe(digest), ttlSeconds: this.ttlSeconds };
  }
}

/**
 * A claim taken as `token`, with the order's text when the caller named an order (a missing order is a nil reply from
 * Redis, false from local mode's stand-in).
 */
function claimed(token: string, orderId: string | undefined, text: unknown): DedupeClaim {
  return orderId === undefined
    ? { state: "claimed", token }
    : { state: "claimed", token, order: { orderId, text: typeof text === "string" ? text : null } };
}
