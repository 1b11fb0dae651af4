import { RedisAdapter } from "@grammyjs/storage-redis";
import type { StorageAdapter } from "grammy";
import type { Redis } from "ioredis";
import type { HeldWrites } from "./held-writes.ts";
import type { UpdateReads } from "./update-reads.ts";

/**
 * grammY session storage: @grammyjs/storage-redis's adapter (JSON per chat key, with a lifetime), except that the
 * session the update's first round trip already read (store/update-reads.ts) is not read again, and that while the
 * update inbox handles an update its writes are committed with the acknowledgement (store/held-writes.ts), in the
 * adapter's format.
 */
export class SessionStorage<T> implements StorageAdapter<T> {
  private readonly adapter: RedisAdapter<T>;

  constructor(
    redis: Redis,
    private readonly ttlSeconds: number,
    private readonly reads: UpdateReads,
    private readonly held: HeldWrites,
  ) {
    this.adapter = new RedisAdapter<T>({ instance: redis, ttl: ttlSeconds });
  }

  async read(key: string): Promise<T | undefined> {
    const pending = this.held.pending(key);
    const stored = pending ? (pending.value as string | null) : this.reads.takeSeeded<string>(key);
    if (stored === undefined) return this.adapter.read(key);
    return stored === null ? undefined : (JSON.parse(stored) as T);
  }

  async write(key: string, value: T): Promise<void> {
    if (this.held.hold({ key, value: JSON.stringify(value), ttlSeconds: this.ttlSeconds })) return;
    await this.adapter.write(key, value);
  }

  async delete(key: string): Promise<void> {
    if (this.held.hold({ key, value: null, ttlSeconds: 0 })) return;
    await this.adapter.delete(key);
  }
}
