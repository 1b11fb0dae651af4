import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";

/** At most `updates` incoming updates per user per window of `windowMs`, across every process of the bot. */
export interface IncomingLimit {
  updates: number;
  windowMs: number;
}

/** allow: handle it. notify: the first update over the limit in this window (say so once). drop: ignore it. */
type IncomingVerdict = "allow" | "notify" | "drop";

/**
 * A fixed window per user that opens at the user's first update: INCR, and the window's TTL set on the first hit.
 * Exactly one update per window sees count = limit + 1, so exactly one notice is sent however hard the flood.
 */
const HIT = new LuaScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local limit = tonumber(ARGV[2])
if count <= limit then return 0 end
if count == limit + 1 then return 1 end
return 2`);

export class IncomingLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly limit: IncomingLimit,
  ) {}

  async hit(userId: number): Promise<IncomingVerdict> {
    const verdict = await HIT.run(
      this.redis,
      [keys.incomingLimit(userId)],
      [this.limit.windowMs, this.limit.updates],
    );
    return verdict === 0 ? "allow" : verdict === 1 ? "notify" : "drop";
  }
}
