import type { Redis } from "ioredis";

/**
 * SET key value EX ttl NX: true when this call took the key. The one "first one wins" claim (a press handled
 * once, a job one process runs, an alert raised once per period); released, if at all, with deleteIfEquals.
 */
export async function claimKey(
  redis: Redis,
  key: string,
  value: string,
  ttlSeconds: number,
): Promise<boolean> {
  return (await redis.set(key, value, "EX", ttlSeconds, "NX")) === "OK";
}
