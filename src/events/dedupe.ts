import { createHash } from "node:crypto";
import { transactionFacts } from "#src/orders/facts.js";

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
