import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";

/**
 * Each user's budget of quotes, checked and taken in one script before the payout API is asked for a quote:
 * - open: unpaid quotes not yet expired, at most `maxOpen` at once (`user:<id>:quotes:open`, scored by expiry; an
 *   order enters it when it is created and leaves it when it is paid, expires or is retired, store/orders.ts);
 * - rate: quotes asked for in the last `windowMs`, at most `maxInWindow` (`user:<id>:quotes:asked`, scored by when).
 * Both sets are trimmed by score on every check, so neither outgrows its budget. Times are the API's clock (quote
 * expiries are on it).
 */
interface QuoteBudgetLimits {
  maxOpen: number;
  maxInWindow: number;
  windowMs: number;
}

/** The budget is spent: no quote was asked for; the next one is possible at `retryAtMs` (API clock). */
export class QuoteBudgetExceeded extends Error {
  constructor(readonly retryAtMs: number) {
    super("quote budget spent");
    this.name = "QuoteBudgetExceeded";
  }
}

/**
 * How long a quote being asked for holds an open slot before its order exists (the request's own time limit is far
 * shorter): a process that died mid-quote frees the slot by then.
 */
const PENDING_HOLD_MS = 2 * 60_000;
/** The open set outlives any quote's expiry (minutes); an idle user's set then disappears. */
export const OPEN_QUOTES_TTL_MS = 24 * 3600_000;
const pendingMember = (action: string) => `pending:${action}`;

// KEYS: the asked set, the open set.
// ARGV: now · window (ms) · max in window · max open · the action · its pending member · hold until · asked set TTL
//   · open set TTL. Returns {1} (taken, or already taken by this action: a retry of it) or {0, retry at}.
const RESERVE = new LuaScript(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[5]) then return {1} end
local retry = 0
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  retry = tonumber(oldest[2]) + window
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  local soonest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  retry = math.max(retry, tonumber(soonest[2]))
end
if retry > 0 then return {0, tostring(retry)} end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('ZADD', KEYS[2], tonumber(ARGV[7]), ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('PEXPIRE', KEYS[2], ARGV[9])
return {1}
`);

export class QuoteBudget {
  constructor(private readonly redis: Redis) {}

  /**
   * Take one quote of `userId`'s budget for `action` (the user action's idempotency key), or throw
   * QuoteBudgetExceeded. Taking it again for the same action (a retry, a takeover) is free while it is in the window.
   */
  async reserve(userId: number, action: string, nowMs: number, limits: QuoteBudgetLimits): Promise<void> {
    const answer = (await RESERVE.run(
      this.redis,
      [keys.userQuotesAsked(userId), keys.userQuotesOpen(userId)],
      [
        nowMs,
        limits.windowMs,
        limits.maxInWindow,
        limits.maxOpen,
        action,
        pendingMember(action),
        nowMs + PENDING_HOLD_MS,
        limits.windowMs + 60_000,
        OPEN_QUOTES_TTL_MS,
      ],
    )) as [number, string?];
    if (answer[0] !== 1) throw new QuoteBudgetExceeded(Number(answer[1]));
  }

  /** The quote of `action` was made (its order now holds the open slot) or failed: its pending hold ends. */
  async settle(userId: number, action: string): Promise<void> {
    await this.redis.zrem(keys.userQuotesOpen(userId), pendingMember(action));
  }
}
