import type { OpsAlert } from "#src/events/types.js";

/** Alerts the ops feature raises itself, besides the events pipeline's OpsAlert. */
type OwnAlert =
  | { type: "webhook_signature_failed"; count: number; at: string }
  | { type: "payout_api_errors"; count: number; windowSeconds: number; at: string }
  | { type: "payout_api_down"; failures: number; reason: string; at: string }
  | { type: "low_balance"; currency: string; balance: number; threshold: number; at: string }
  | {
      type: "refund";
      orderId: string;
      userId: number;
      state: string;
      /** In minor units of `currency` (sats when absent). */
      amountSats: number;
      currency?: "BTCSAT" | "NGNKOBO";
      /** Still open long after it was requested. */
      stuck?: boolean;
      at: string;
    }
  | {
      type: "withdrawal_update";
      approvalId: string;
      transactionId: string;
      status: string;
      amount: number;
      currency: string;
      at: string;
    };
export type AnyAlert = OpsAlert | OwnAlert;
