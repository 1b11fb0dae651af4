import type { Redis } from "ioredis";

/**
 * SET key value PX ttl NX: true when this call took the key. The one "first one wins" claim (a press handled
 * once, a periodic job one process runs, an alert raised once per period); released, if at all, with
 * deleteIfEquals (script.ts) or by its TTL.
 */
export async function claimKey(redis: Redis, key: string, value: string, ttlMs: number): Promise<boolean> {
  return (await redis.set(key, value, "PX", ttlMs, "NX")) === "OK";
}
