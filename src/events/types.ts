import type { OrderStage } from "#src/store/order-record.js";

/** Ops alerts emitted through the injected `onAlert` hook (the ops feature batches them into the admin group). */
export type OpsAlert =
  | {
      type: "order_failed";
      orderId: string;
      userId: number;
      kind: "payout" | "buy";
      corridor: string;
      failureReason?: string;
      /** Stage the order had reached before failing (payment_received / payout_sent: funds are held). */
      previousStage?: OrderStage;
      at: string;
    }
  | { type: "user_unreachable"; userId: number; orderId: string; description: string; at: string }
  | {
      type: "dead_letter";
      queue: string;
      jobId: string;
      name: string;
      reason: string;
      attempts: number;
      at: string;
    };

/** A payout-API webhook as queued: the parsed JSON body, exactly as the sender signed it. */
export interface WebhookEnvelope {
  event: string;
  data: unknown;
}

/** Payment-link (merchant) traffic handed to the injected `onPaymentLinkEvent` hook. */
export interface PaymentLinkEvent {
  /** "payment_link.settled", or a payment.* event for an order the bot did not create (a payment-link order). */
  event: string;
  data: unknown;
  orderId?: string;
  hash?: string;
  receivedAt: string;
}

/** The subset of the payout API client the pipeline uses (PayoutApi from src/api satisfies it). */
export interface EventsPayoutApi {
  getOrder(orderId: string): Promise<{ status?: string }>;
  getTransactions(query: { id?: string; orderId?: string; hash?: string }): Promise<unknown[]>;
  ping(): Promise<unknown>;
}

/** A job of the delivery queue: an order's outbox, an ops alert, a payment-link event, a money request's notice. */
export type DeliveryJobData =
  /** `userId`: the owner, when the process that queued it knew (the order and its owner are then read at once). */
  | { kind: "order"; orderId: string; userId?: number }
  | { kind: "alert"; alert: OpsAlert }
  | { kind: "payment-link"; event: PaymentLinkEvent }
  | { kind: "request"; orderId: string; stage: OrderStage };
