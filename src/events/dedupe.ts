import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { transactionFacts } from "#src/orders/facts.js";
import type { DedupeClaim, EventDeduper, ProcessRegistry } from "#src/store/index.js";

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

/** How long a delivery waits on another delivery of its event (the sender gives up on an answer after 5 s). */
export const CLAIM_WAIT_MS = 2_000;
const CLAIM_POLL_MS = 20;

/**
 * Claim an event for this delivery, waiting while another delivery of it holds the claim, so a repeat is answered as
 * one only once its event is recorded. An event whose claimant failed (it released the claim) goes to the delivery
 * that claims it next; one whose claimant died, to the first delivery after that process's heartbeat lapsed. Still
 * `busy` after `waitMs`: the caller answers 503, so the sender retries.
 */
export async function claimEvent(
  deduper: EventDeduper,
  digest: string,
  options: { orderId?: string | undefined; waitMs: number; processes?: ProcessRegistry | undefined },
): Promise<DedupeClaim> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const claim = await deduper.claim(digest, options.orderId, options.processes);
    if (claim.state !== "busy" || Date.now() >= deadline) return claim;
    await sleep(CLAIM_POLL_MS);
  }
}
