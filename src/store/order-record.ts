import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { parseJson } from "./json.ts";

/**
 * What we remember per order, so webhook events, the reconciler and /status can find the owner's chat and edit
 * the one status message. Amounts are integer minor units of their currency code.
 */
export const ORDER_STAGES = [
  "awaiting_payment",
  "payment_received",
  "payout_sent",
  "completed",
  "failed",
  "expired",
  "cancelled",
] as const;
export type OrderStage = (typeof ORDER_STAGES)[number];

export const STAGE_RANK: Record<OrderStage, number> = {
  awaiting_payment: 0,
  payment_received: 1,
  payout_sent: 2,
  completed: 3,
  failed: 3,
  expired: 3,
  cancelled: 3,
};
export const isTerminalStage = (stage: OrderStage) => STAGE_RANK[stage] === 3;

/**
 * The stages of an order that ended unpaid: its quote ran out (`expired`) or it was dropped before its owner
 * confirmed it (`cancelled`: the quote card's ❌, /cancel, leaving the flow, a quote the flow may not hand out; see
 * bot/rules/supersede.ts). Both keep the short retention (store/order-retention.ts).
 */
export const endedUnpaid = (stage: OrderStage) => stage === "expired" || stage === "cancelled";

const moneySchema = z.object({ amount: z.number().int(), currency: z.string() });

export const orderRecordSchema = z.object({
  orderId: z.string(),
  quoteId: z.string(),
  hash: z.string(),
  kind: z.enum(["payout", "buy"]),
  corridor: z.enum(COUNTRIES),
  chatId: z.number().int(),
  userId: z.number().int(),
  /** The quote card (edited to "expired" by the reconciler if never confirmed). */
  quoteMessageId: z.number().int().optional(),
  /** Set when the user pressed Confirm and got the invoice / pay-in details. */
  confirmedAt: z.string().optional(),
  /** When the quote was dropped (stage `cancelled`), on the API's clock; kept if a payment revives it. */
  cancelledAt: z.string().optional(),
  /** The one status message edited through every stage. */
  statusMessageId: z.number().int().optional(),
  /**
   * Who may send the status card while it has none, until when (the app's clock, ms): taken before the card is sent
   * and dropped when its id is recorded (src/orders/messages.ts), so a second sender edits that card instead.
   */
  statusCardClaim: z.object({ by: z.string(), until: z.number() }).optional(),
  invoiceMessageId: z.number().int().optional(),
  /**
   * When what a confirmed order owes its owner reached them: the invoice (QR photo + BOLT11) and the status card of
   * a payout, the status card of a buy (its transfer details are on the quote card shown before Confirm). A confirmed order without it is in
   * `orders:undelivered` until the recovery sweep (src/events/recovery.ts) or the flow itself delivers it.
   */
  deliveredAt: z.string().optional(),
  stage: z.enum(ORDER_STAGES),
  /** What the user pays (sats for payouts, kobo for buys), fees included. */
  pay: moneySchema,
  /** What the recipient gets (local minor units for payouts, sats for buys). */
  receive: moneySchema,
  /** The amount as the user gave it (a payout typed in local money or in sats), for repeating it as given. */
  asked: moneySchema.optional(),
  fee: moneySchema,
  /** Display label of the beneficiary, already masked ("GTBANK PLC ••6789 · ADA OBI"). */
  recipientLabel: z.string(),
  /** Snapshot of the beneficiary for "save recipient" / "send again" (kept server side, never in callback data). */
  beneficiary: z.record(z.string(), z.unknown()).optional(),
  /** Short anti-impersonation code shown on the quote and the invoice. */
  verificationCode: z.string(),
  speed: z.enum(["slow", "medium", "fast"]).optional(),
  /** A purchase's on-chain network fee (the quote's `estimatedRoutingFee`, sats), paid from the sats it buys. */
  networkFeeSats: z.number().int().nonnegative().optional(),
  /** A purchase's exchange rate: the API's price of 1 BTC when it was quoted, in minor units of what is paid. */
  ratePerBtc: z.number().int().positive().optional(),
  /** Bank-transfer pay-in details of a buy order. */
  payIn: z
    .object({
      bankName: z.string(),
      accountNumber: z.string(),
      accountName: z.string(),
      bankCode: z.string().optional(),
    })
    .optional(),
  expiresAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  payoutReference: z.string().optional(),
  txid: z.string().optional(),
  confirmations: z.number().int().optional(),
  failureReason: z.string().optional(),
  /** Saved-recipient id this order was sent to, if any. */
  recipientId: z.string().optional(),
  /** The money request this payout pays (its token): the requester is told when it is paid and when it lands. */
  requestId: z.string().optional(),
  /** The refund of held sats, as last noted (the refund record, `refund:<orderId>`, is the source of truth). */
  refund: z
    .object({
      state: z.string(),
      amountSats: z.number().int(),
      transactionId: z.string().optional(),
      updatedAt: z.string(),
    })
    .optional(),
});
export type OrderRecord = z.infer<typeof orderRecordSchema>;
/** What `OrderRepository.transition` did. */
export interface TransitionResult {
  order: OrderRecord;
  /** False when the transition was stale (lower stage, fewer confirmations) or a duplicate. */
  changed: boolean;
  previousStage: OrderStage;
  /** The confirmation count before the transition (on-chain orders), so every block in between can be shown. */
  previousConfirmations?: number;
}
/** An order with the exact text it was read from (the guess of a compare-and-set). */
export type OrderWithText = { order: OrderRecord; raw: string };
/** An order's text as stored, read ahead by someone else (null: absent). */
export type OrderText = { orderId: string; text: string | null };
export type NewOrder = Omit<OrderRecord, "stage" | "createdAt" | "updatedAt"> & { stage?: OrderStage };

export interface OrderTransition {
  stage?: OrderStage;
  confirmations?: number;
  txid?: string;
  payoutReference?: string;
  failureReason?: string;
}

/**
 * Order texts this process parsed or wrote lately, with their records. One webhook event reads its order's text,
 * compares-and-sets the same text and reads the text it wrote back with the delivery's claim: the schema runs once
 * for the three. Keyed by the exact text, so a record is only ever the parse of what Redis holds; records are deeply
 * frozen because every reader of that text shares them.
 */
const ORDER_TEXTS_KEPT = 512;
const orderTexts = new Map<string, OrderRecord>();

/** An order's stored text → its record (undefined: absent, corrupt or outdated). */
export function parseOrderText(raw: string | null | undefined): OrderRecord | undefined {
  if (raw === null || raw === undefined) return undefined;
  const known = orderTexts.get(raw);
  if (known) return known;
  const order = parseJson(raw, orderRecordSchema);
  if (order) keepOrderText(raw, order);
  return order;
}

/**
 * Note the text a compare-and-set just wrote for `order`, a record built from a parsed one (it is frozen: its
 * caller shares it from here on).
 */
export function keepOrderText(text: string, order: OrderRecord): void {
  if (orderTexts.size >= ORDER_TEXTS_KEPT) orderTexts.delete(orderTexts.keys().next().value as string);
  orderTexts.set(text, deepFreeze(order));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
