/** BullMQ queue names (BullMQ forbids ':' in them). Keys live under `<prefix>:<queue>:*`. */
export const QUEUE_NAMES = {
  ingest: "payout-events",
  deliveries: "payout-deliveries",
  reconcile: "payout-reconcile",
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
