import { tooManyRequests } from "./errors.ts";

export interface RateLimitOptions {
  /** Messages per second across all chats (Telegram: about 30). */
  globalPerSecond: number;
  /** Messages per second in one private chat (about 1), with a small burst allowance. */
  privatePerSecond: number;
  privateBurst: number;
  /** Messages per minute in one group (20). */
  groupPerMinute: number;
}

export const TELEGRAM_RATE_LIMITS: RateLimitOptions = {
  globalPerSecond: 30,
  privatePerSecond: 1,
  privateBurst: 3,
  groupPerMinute: 20,
};

/** Methods that count as a message for Telegram's flood control. */
const LIMITED = /^(send|edit|copy|forward)/i;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Token buckets per chat and overall; off unless enabled. Over the limit → 429 with retry_after. */
export class RateLimiter {
  private options: RateLimitOptions | undefined;
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number) {}

  configure(options: Partial<RateLimitOptions> | boolean | undefined): void {
    this.buckets.clear();
    if (!options) this.options = undefined;
    else this.options = { ...TELEGRAM_RATE_LIMITS, ...(options === true ? {} : options) };
  }

  get enabled(): boolean {
    return this.options !== undefined;
  }

  /** Throws the 429 when the call would exceed a limit; otherwise spends one token in each bucket. */
  check(method: string, chatId: number | undefined, isGroup: boolean): void {
    const options = this.options;
    if (!options || !LIMITED.test(method) || method.toLowerCase() === "sendchataction") return;
    const limits: [string, number, number][] = [["global", options.globalPerSecond, options.globalPerSecond]];
    if (chatId !== undefined) {
      if (isGroup) limits.push([`chat:${chatId}`, options.groupPerMinute / 60, options.groupPerMinute]);
      else limits.push([`chat:${chatId}`, options.privatePerSecond, options.privateBurst]);
    }
    const now = this.now();
    const buckets = limits.map(([key, ratePerSecond, capacity]) => {
      const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: now };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * ratePerSecond);
      bucket.updatedAt = now;
      this.buckets.set(key, bucket);
      return { bucket, ratePerSecond };
    });
    const empty = buckets.filter(({ bucket }) => bucket.tokens < 1);
    if (empty.length > 0) {
      const waitSeconds = Math.max(
        ...empty.map(({ bucket, ratePerSecond }) => (1 - bucket.tokens) / ratePerSecond),
      );
      throw tooManyRequests(Math.max(1, Math.ceil(waitSeconds)));
    }
    for (const { bucket } of buckets) bucket.tokens -= 1;
  }
}
