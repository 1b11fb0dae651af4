import { z } from "zod";
import { ngnBankBeneficiarySchema } from "./beneficiary.ts";
import { messageOrObject } from "./common.ts";

/** Bodies and queries of the smaller calls; validated before anything is sent. */

const positiveMinor = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const withdrawNgnRequestSchema = z.strictObject({
  /** Kobo (100000 = ₦1,000.00); sent as a string as the spec shows. */
  amount: positiveMinor,
  /** Exactly as name enquiry returned it: the API compares character for character. */
  beneficiary: ngnBankBeneficiarySchema,
});
export type WithdrawNgnRequest = z.input<typeof withdrawNgnRequestSchema>;

export const withdrawBtcRequestSchema = z.strictObject({
  invoice: z.string().trim().min(1),
  memo: z.string().optional(),
});
export type WithdrawBtcRequest = z.input<typeof withdrawBtcRequestSchema>;

export const nameEnquiryRequestSchema = z.strictObject({
  accountNumber: z.string().regex(/^\d{10}$/, "must be exactly 10 digits"),
  bankCode: z.string().trim().min(1),
});
export type NameEnquiryRequest = z.input<typeof nameEnquiryRequestSchema>;

export const transactionQuerySchema = z
  .strictObject({
    id: z.string().min(1).optional(),
    orderId: z.string().min(1).optional(),
    hash: z.string().min(1).optional(),
  })
  .refine((query) => query.id ?? query.orderId ?? query.hash, { message: "give id, orderId or hash" });
export type TransactionQuery = z.input<typeof transactionQuerySchema>;

export const walletQuerySchema = z.strictObject({
  walletId: z.string().min(1).optional(),
  currency: z.string().min(1).optional(),
});
export type WalletQuery = z.input<typeof walletQuerySchema>;

/**
 * POST /simulation/pay-in (staging/sandbox only). Spec form: {amount, currency:"NGN", orderId}; the real service
 * also takes quoteId, and currency "BTC" without an amount for Lightning quotes.
 */
export const simulatePayInRequestSchema = z
  .strictObject({
    orderId: z.string().min(1).optional(),
    quoteId: z.string().min(1).optional(),
    currency: z.enum(["NGN", "BTC"]),
    amount: positiveMinor.optional(),
  })
  .refine((request) => request.orderId ?? request.quoteId, { message: "give orderId or quoteId" })
  .refine((request) => request.currency !== "NGN" || request.amount !== undefined, {
    path: ["amount"],
    message: "is required for an NGN pay-in",
  });
export type SimulatePayInRequest = z.input<typeof simulatePayInRequestSchema>;

/** The real service answers `data: "PayIn simulation successful"`. */
export const simulationResultSchema = messageOrObject;
export type SimulationResult = z.output<typeof simulationResultSchema>;
