import { z } from "zod";
import { list, opt, stringish } from "./common.ts";
import { nestedQuoteSchema } from "./quote.ts";
import { transactionSchema } from "./transaction.ts";

/** Order statuses seen: PAID, PENDING, EXPIRED, FAILED (open string). */

/** An item of GET /order/all (spec 2.2). `amount` is a decimal string in major units ("2000.50"). */
const orderListItemSchema = z.looseObject({
  orderId: z.string(),
  quoteId: opt(z.string()),
  status: z.string(),
  currency: opt(z.string()),
  paymentMethod: opt(z.string()),
  isValid: opt(z.boolean()),
  amount: opt(stringish),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
  quotes: list(nestedQuoteSchema),
  transactions: list(transactionSchema),
});
export type OrderListItem = z.output<typeof orderListItemSchema>;

export const orderListSchema = list(orderListItemSchema);

/** GET /order: `paymentCollectionMethod` replaces paymentMethod; `displayAmount` is "2000.50 NGN"-like text. */
export const orderSchema = z.looseObject({
  orderId: z.string(),
  quoteId: opt(z.string()),
  status: z.string(),
  currency: opt(z.string()),
  /** LIGHTNING, ONCHAIN, USDT… */
  paymentCollectionMethod: opt(z.string()),
  isValid: opt(z.boolean()),
  displayAmount: opt(z.string()),
  /** The Lightning invoice. */
  paymentBtcDetail: opt(z.string()),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
  quotes: list(nestedQuoteSchema),
  transactions: list(transactionSchema),
});
export type Order = z.output<typeof orderSchema>;
