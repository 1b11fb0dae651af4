import type { Redis } from "ioredis";
import { claimKey } from "./claims.ts";
import { keys } from "./keys.ts";

const QUEUE_CAP = 500;

/**
 * The ops alert queue and the alerts loop's bookkeeping: any process (and any service) may queue an alert; one
 * process at a time posts the queue and runs the periodic checks; each kind of alert repeats at most once per
 * period. Values are the caller's JSON.
 */
export class AlertRepository {
  constructor(private readonly redis: Redis) {}

  /** Queue an alert (the oldest beyond the cap are dropped). */
  async enqueue(json: string): Promise<void> {
    await this.redis.multi().rpush(keys.alertQueue(), json).ltrim(keys.alertQueue(), -QUEUE_CAP, -1).exec();
  }

  async take(count: number): Promise<string[]> {
    return (await this.redis.lpop(keys.alertQueue(), count)) ?? [];
  }

  /** Put taken alerts back in front, in their order (a post that failed). */
  async putBack(taken: readonly string[]): Promise<void> {
    if (taken.length > 0) await this.redis.lpush(keys.alertQueue(), ...[...taken].reverse());
  }

  /** The right to post the queue now (one process per period). */
  claimFlush(ttlMs: number): Promise<boolean> {
    return claimKey(this.redis, keys.alertFlushLock(), "1", ttlMs);
  }

  async releaseFlush(): Promise<void> {
    await this.redis.del(keys.alertFlushLock());
  }

  /** The right to run the periodic checks now (one process per period). */
  claimCheck(ttlMs: number): Promise<boolean> {
    return claimKey(this.redis, keys.alertCheckLock(), "1", ttlMs);
  }

  /** True when this low balance was not announced within the period (it is now marked announced). */
  claimLowBalance(currency: string, periodSeconds: number): Promise<boolean> {
    return claimKey(this.redis, keys.alertLowBalance(currency), "1", periodSeconds * 1000);
  }

  async clearLowBalance(currency: string): Promise<void> {
    await this.redis.del(keys.alertLowBalance(currency));
  }

  /** One more failed API ping in a row; returns how many. */
  countApiFailure(): Promise<number> {
    return this.redis.incr(keys.alertApiFailures());
  }

  async clearApiFailures(): Promise<void> {
    await this.redis.del(keys.alertApiFailures());
  }

  claimApiDown(periodSeconds: number): Promise<boolean> {
    return claimKey(this.redis, keys.alertApiDown(), "1", periodSeconds * 1000);
  }

  claimRefundStuck(orderId: string, periodSeconds: number): Promise<boolean> {
    return claimKey(this.redis, keys.alertRefundStuck(orderId), "1", periodSeconds * 1000);
  }

  async recordWebhook(iso: string): Promise<void> {
    await this.redis.set(keys.webhookLast(), iso);
  }

  /** One more forged webhook; returns how many arrived in the current window (1 opens a new window). */
  async countForged(windowSeconds: number): Promise<number> {
    await this.redis.incr(keys.webhookForged());
    const count = await this.redis.incr(keys.alertForgedWindow());
    if (count === 1) await this.redis.expire(keys.alertForgedWindow(), windowSeconds);
    return count;
  }

  async lastWebhookAt(): Promise<string | undefined> {
    return (await this.redis.get(keys.webhookLast())) ?? undefined;
  }

  async forgedTotal(): Promise<number> {
    return Number((await this.redis.get(keys.webhookForged())) ?? 0);
  }

  /** A short id for a dead letter behind a "retry" button (its queue and job id may not fit in 64 bytes). */
  async saveRef(ref: string, json: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(keys.alertRef(ref), json, "EX", ttlSeconds);
  }

  async readRef(ref: string): Promise<string | undefined> {
    return (await this.redis.get(keys.alertRef(ref))) ?? undefined;
  }
}
