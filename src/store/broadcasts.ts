import type { Redis } from "ioredis";
import { claimKey } from "./claims.ts";
import { keys } from "./keys.ts";
import { deleteIfEquals } from "./script.ts";

/** Ops broadcasts: drafts waiting for their author's Send, the one-at-a-time lock, and the running counts. */
export class BroadcastRepository {
  constructor(private readonly redis: Redis) {}

  async saveDraft(id: string, json: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(keys.broadcastDraft(id), json, "EX", ttlSeconds);
  }

  async readDraft(id: string): Promise<string | undefined> {
    return (await this.redis.get(keys.broadcastDraft(id))) ?? undefined;
  }

  /** Read and delete: only one Send goes through. */
  async takeDraft(id: string): Promise<string | undefined> {
    return (await this.redis.getdel(keys.broadcastDraft(id))) ?? undefined;
  }

  async dropDraft(id: string): Promise<void> {
    await this.redis.del(keys.broadcastDraft(id));
  }

  claimLock(id: string, ttlSeconds: number): Promise<boolean> {
    return claimKey(this.redis, keys.broadcastLock(), id, ttlSeconds * 1000);
  }

  async running(): Promise<boolean> {
    return (await this.redis.exists(keys.broadcastLock())) === 1;
  }

  /** Release the lock if this broadcast still holds it. */
  async releaseLock(id: string): Promise<void> {
    await deleteIfEquals(this.redis, keys.broadcastLock(), id);
  }

  async saveProgress(id: string, json: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(keys.broadcastProgress(id), json, "EX", ttlSeconds);
  }
}
