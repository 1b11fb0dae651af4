import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { transactionFacts } from "../orders/facts.ts";
import { eventKeys } from "./keys.ts";

/**
 * "The same webhook may be sent multiple times", and one transaction may legitimately arrive as PENDING and then
 * SUCCESS (notes 11): the identity of a delivery is (event, data.id, data.status). On-chain withdrawals that
 * report a confirmation count add it, so 1/3 and 2/3 are not mistaken for repeats.
 */
export function dedupeIdentity(eventName: string, data: unknown): string | undefined {
  const record = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  const facts = transactionFacts(data);
  // payment_link.settled nests the transaction; its link reference identifies the settlement.
  const nested = transactionFacts(record.transaction);
  const id = facts.id ?? nested.id ?? (typeof record.paymentRef === "string" ? record.paymentRef : undefined);
  if (!id) return undefined;
  const status = facts.status ?? nested.status ?? "";
  const confirmations = facts.confirmations ?? nested.confirmations;
  return [eventName, id, status, ...(confirmations === undefined ? [] : [String(confirmations)])].join("|");
}

export const dedupeDigest = (identity: string) =>
  createHash("sha256").update(identity).digest("hex").slice(0, 40);

export class EventDeduper {
  constructor(
    private readonly redis: Redis,
    /** Longer than any sender's retry window (the sandbox retries for about an hour). */
    private readonly ttlSeconds = 7 * 24 * 3600,
  ) {}

  /** Whether this identity was queued before (within the TTL). */
  async seen(digest: string): Promise<boolean> {
    return (await this.redis.exists(eventKeys.dedupe(digest))) === 1;
  }

  /**
   * Remember an identity once its event is queued. Recorded only after the queue has it: a process killed between
   * the two leaves no mark, so the sender's retry is queued again (the job id makes that add a no-op while the job
   * exists, and ingest is idempotent after it ran). A mark taken before queueing would turn that retry into a
   * "duplicate" and lose the event.
   */
  async remember(digest: string): Promise<void> {
    await this.redis.set(eventKeys.dedupe(digest), "1", "EX", this.ttlSeconds);
  }
}
