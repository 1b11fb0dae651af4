import type { Redis } from "ioredis";
import { keys } from "./keys.ts";

/** A KES reference points at its order for a month. */
const REFERENCE_TTL_SECONDS = 30 * 24 * 3600;

/**
 * The KES reference of a payout → its order id. A KES payment.sent carries only `metadata.reference`: it is
 * remembered when payment.received names the order, so the later event finds it.
 */
export class OrderReferences {
  constructor(private readonly redis: Redis) {}

  async find(reference: string): Promise<string | undefined> {
    return (await this.redis.get(keys.referenceIndex(reference))) ?? undefined;
  }

  async remember(reference: string, orderId: string): Promise<void> {
    await this.redis.set(keys.referenceIndex(reference), orderId, "EX", REFERENCE_TTL_SECONDS);
  }
}
