import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import type { OrderText } from "./order-record.ts";

/**
 * A webhook's dedupe mark, set by the script that records the event's effect (OrderRepository.transition,
 * Outbox.recordAll).
 */
export interface DedupeMark {
  key: string;
  ttlSeconds: number;
}

/**
 * Webhooks already queued, by the digest of their identity (src/events/dedupe.ts says what makes two deliveries
 * the same event).
 */
export class EventDeduper {
  constructor(
    private readonly redis: Redis,
    /** Longer than any sender's retry window (the sandbox retries for about an hour). */
    private readonly ttlSeconds = 7 * 24 * 3600,
  ) {}

  /**
   * Whether this identity was queued before (within the TTL), and with `orderId` (the order the event names) that
   * order's text as stored (null: absent), read in the same command: the first read of its ingest.
   */
  async seen(digest: string, orderId?: string): Promise<{ seen: boolean; order?: OrderText }> {
    if (orderId === undefined) return { seen: (await this.redis.exists(keys.dedupe(digest))) === 1 };
    const [mark, text] = await this.redis.mget(keys.dedupe(digest), keys.order(orderId));
    return { seen: mark !== null, order: { orderId, text: text ?? null } };
  }

  /**
   * Remember an identity once its event is queued. Recorded only after the queue has it: a process killed between
   * the two leaves no mark, so the sender's retry is queued again (the job id makes that add a no-op while the job
   * exists, and ingest is idempotent after it ran). A mark taken before queueing would turn that retry into a
   * "duplicate" and lose the event.
   */
  async remember(digest: string): Promise<void> {
    const { key, ttlSeconds } = this.mark(digest);
    await this.redis.set(key, "1", "EX", ttlSeconds);
  }

  /** `remember`'s write, for a script that records the event's effect to make in the same round trip. */
  mark(digest: string): DedupeMark {
    return { key: keys.dedupe(digest), ttlSeconds: this.ttlSeconds };
  }
}
