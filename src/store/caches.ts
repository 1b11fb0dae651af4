import type { Redis } from "ioredis";

/**
 * Short-lived copies of what the payout API or Telegram said (prices, bank lists, corridor minimums, admin-group
 * membership), shared by every process. Keys come from `keys` (keys.ts); values are the caller's text.
 */
export class CacheRepository {
  constructor(private readonly redis: Redis) {}

  async read(key: string): Promise<string | undefined> {
    return (await this.redis.get(key)) ?? undefined;
  }

  async write(key: string, text: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(key, text, "EX", ttlSeconds);
  }

  async forget(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
