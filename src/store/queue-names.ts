/**
 * BullMQ queue names (BullMQ forbids ':' in them), with the store's other key names: BullMQ keeps each queue's keys
 * under `<prefix>:<queue>:*`.
 */
export const QUEUE_NAMES = {
  ingest: "payout-events",
  deliveries: "payout-deliveries",
  reconcile: "payout-reconcile",
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
