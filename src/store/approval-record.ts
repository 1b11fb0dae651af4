import { z } from "zod";
import { parseJson } from "./json.ts";

// A four-eyes approval request as stored (a hash per request): its states, payloads and result, read strictly.

const APPROVAL_STATES = [
  "pending",
  "executing",
  "done",
  "failed",
  "uncertain",
  "rejected",
  "expired",
] as const;
type ApprovalState = (typeof APPROVAL_STATES)[number];

const withdrawNgnPayloadSchema = z.object({
  kind: z.literal("withdraw_ngn"),
  /** Kobo. */
  amount: z.number().int().positive(),
  /** Exactly as name enquiry returned it (the API compares character for character). */
  beneficiary: z.object({
    bankAccountNumber: z.string(),
    bankAccountName: z.string(),
    bankCode: z.string(),
    bankName: z.string(),
  }),
});
const withdrawBtcPayloadSchema = z.object({
  kind: z.literal("withdraw_btc"),
  invoice: z.string(),
  /** Decoded from the invoice. */
  amountSats: z.number().int().positive(),
  /** Unix ms the invoice expires. */
  invoiceExpiresAt: z.number().int(),
  paymentHash: z.string().optional(),
  memo: z.string().optional(),
});
/** A user's refund of held sats above REFUND_APPROVAL_THRESHOLD_SATS (the user is the requester). */
const refundPayloadSchema = z.object({
  kind: z.literal("refund"),
  orderId: z.string(),
  invoice: z.string(),
  amountSats: z.number().int().positive(),
  /** Unix ms the invoice expires. */
  invoiceExpiresAt: z.number().int(),
  /** As shown to the user: a shortened invoice or the Lightning address. */
  destination: z.string(),
  paymentHash: z.string().optional(),
});
/** A user's refund of a naira-funded order's kobo above NGN_REFUND_APPROVAL_THRESHOLD_KOBO, to their bank account. */
const refundNgnPayloadSchema = z.object({
  kind: z.literal("refund_ngn"),
  orderId: z.string(),
  /** Kobo: exactly what the order's NGN deposit brought. */
  amount: z.number().int().positive(),
  beneficiary: withdrawNgnPayloadSchema.shape.beneficiary,
});
export const approvalPayloadSchema = z.discriminatedUnion("kind", [
  withdrawNgnPayloadSchema,
  withdrawBtcPayloadSchema,
  refundPayloadSchema,
  refundNgnPayloadSchema,
]);
export type ApprovalPayload = z.infer<typeof approvalPayloadSchema>;

export const approvalResultSchema = z.object({
  transactionId: z.string().optional(),
  status: z.string().optional(),
  /** Safe, already-scrubbed description of a failure. */
  error: z.string().optional(),
});
export type ApprovalResult = z.infer<typeof approvalResultSchema>;

export interface ApprovalRecord {
  id: string;
  state: ApprovalState;
  payload: ApprovalPayload;
  requestedBy: number;
  requesterName: string;
  chatId: number;
  messageId?: number;
  createdAt: number;
  expiresAt: number;
  decidedBy?: number;
  decidedAt?: number;
  result?: ApprovalResult;
}

export type ApproveOutcome = "claimed" | "self" | "expired" | "missing" | Exclude<ApprovalState, "pending">;
export type RejectOutcome =
  | "rejected"
  | "expired"
  | "missing"
  | Exclude<ApprovalState, "pending" | "rejected">;

const int = (value: string | undefined): number | undefined => {
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
};

export function toRecord(id: string, fields: Record<string, string>): ApprovalRecord | undefined {
  const state = fields.state as ApprovalState | undefined;
  if (!state || !APPROVAL_STATES.includes(state)) return undefined;
  const payload = parseJson(fields.payload, approvalPayloadSchema);
  const requestedBy = int(fields.requestedBy);
  const chatId = int(fields.chatId);
  const createdAt = int(fields.createdAt);
  const expiresAt = int(fields.expiresAt);
  if (!payload || requestedBy === undefined || chatId === undefined) return undefined;
  if (createdAt === undefined || expiresAt === undefined) return undefined;
  const result = parseJson(fields.result, approvalResultSchema);
  const messageId = int(fields.messageId);
  const decidedBy = int(fields.decidedBy);
  const decidedAt = int(fields.decidedAt);
  return {
    id,
    state,
    payload,
    requestedBy,
    requesterName: fields.requesterName ?? "",
    chatId,
    createdAt,
    expiresAt,
    ...(messageId !== undefined ? { messageId } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
    ...(decidedAt !== undefined ? { decidedAt } : {}),
    ...(result ? { result } : {}),
  };
}
