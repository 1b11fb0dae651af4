/** Every Redis key the events pipeline writes outside BullMQ (docs/architecture.md, "Events", lists them). */
export const eventKeys = {
  /** SET NX marker of a webhook already accepted: (event, data.id, data.status[, confirmations]). */
  dedupe: (digest: string) => `events:seen:${digest}`,
  /** Per-order log of applied transitions still to show the user (the notification outbox). */
  outbox: (orderId: string) => `events:outbox:${orderId}`,
  /** How many outbox entries have been delivered to the user. */
  outboxCursor: (orderId: string) => `events:outbox:${orderId}:cursor`,
  /** The outbox entry whose notification is being sent (set before the send, cleared by the cursor's move). */
  outboxSending: (orderId: string) => `events:outbox:${orderId}:sending`,
  /** Short-lived lock so one delivery at a time talks to an order's chat. */
  orderLock: (orderId: string) => `events:lock:${orderId}`,
  /** KES payment.sent carries only `reference`: remembered from payment.received to find the order. */
  referenceIndex: (reference: string) => `events:ref:${reference}`,
  /** Reconciler backoff: how many times an open order has been checked without reaching a terminal stage. */
  reconcileAttempts: (orderId: string) => `events:reconcile:attempts:${orderId}`,
} as const;

/** BullMQ queue names (BullMQ forbids ':' in them). Keys live under `<prefix>:<queue>:*`. */
export const QUEUE_NAMES = {
  ingest: "payout-events",
  deliveries: "payout-deliveries",
  reconcile: "payout-reconcile",
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
