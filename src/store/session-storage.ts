import { RedisAdapter } from "@grammyjs/storage-redis";
import type { StorageAdapter } from "grammy";
import type { Redis } from "ioredis";
import type { UpdateReads } from "./update-reads.ts";

/**
 * grammY session storage: @grammyjs/storage-redis's adapter (JSON per chat key, with a lifetime), except that the
 * session the update's first round trip already read (store/update-reads.ts) is not read again.
 */
export class SessionStorage<T> implements StorageAdapter<T> {
  private readonly adapter: RedisAdapter<T>;

  constructor(
    redis: Redis,
    ttlSeconds: number,
    private readonly reads: UpdateReads,
  ) {
    this.adapter = new RedisAdapter<T>({ instance: redis, ttl: ttlSeconds });
  }

  async read(key: string): Promise<T | undefined> {
    const seeded = this.reads.takeSeeded<string>(key);
    if (seeded === undefined) return this.adapter.read(key);
    return seeded === null ? undefined : (JSON.parse(seeded) as T);
  }

  write(key: string, value: T): Promise<void> {
    return this.adapter.write(key, value);
  }

  delete(key: string): Promise<void> {
    return this.adapter.delete(key);
  }
}
