import { Redis } from "ioredis";
import { inject } from "vitest";

/**
 * The Redis URL for this test file: the run's private server, with a database of its own per worker
 * (VITEST_POOL_ID), so files running in parallel never see each other's keys.
 */
export function testRedisUrl(): string {
  const base = inject("redisUrl");
  const poolId = Number(process.env.VITEST_POOL_ID ?? "1");
  return `${base}/${poolId % 64}`;
}

/** A connected client on a freshly flushed database for this file. Close it in afterAll. */
export async function freshRedis(): Promise<Redis> {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null, lazyConnect: false });
  await redis.flushdb();
  return redis;
}
