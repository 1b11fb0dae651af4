import { defineCallbackData, ID, oneOf } from "#src/telegram/callback-data.js";

/**
 * Callback data of the buttons the status and quote cards carry (drawn by the bot and by the events pipeline):
 *
 *   order:requote:<orderId>     "New quote" on an expired quote / status card; the bot answers by quoting the
 *                               same recipient and amount again (it reads them from the stored order, never from
 *                               the button).
 *   order:receipt:<orderId>     "Receipt" on a completed status card; the bot sends the receipt to forward.
 *   order:refund:<orderId>      "Get my sats back" on a card whose payout failed after the user paid; the bot asks
 *                               where to send the sats (the amount comes from the stored order, never the button).
 *
 * orderId is the API's `<digits>-<digits>` reference; anything outside [A-Za-z0-9_-]{1,48} is refused so the
 * payload always fits.
 */
const orderData = defineCallbackData("order", { action: oneOf("requote", "receipt", "refund"), orderId: ID });

type OrderCallback = { action: "requote" | "receipt" | "refund"; orderId: string };

export function requoteCallbackData(orderId: string): string {
  return orderData.pack({ action: "requote", orderId });
}

export function receiptCallbackData(orderId: string): string {
  return orderData.pack({ action: "receipt", orderId });
}

export function refundCallbackData(orderId: string): string {
  return orderData.pack({ action: "refund", orderId });
}

/** Parse what a button sent back; undefined for anything that is not ours or is malformed. */
export function parseOrderCallback(data: string | undefined): OrderCallback | undefined {
  return orderData.parse(data) as OrderCallback | undefined;
}

/** Patterns grammY's `bot.callbackQuery()` can match on (read the order id with parseOrderCallback). */
export const REQUOTE_CALLBACK_PATTERN = orderData.filter({ action: "requote" });
export const RECEIPT_CALLBACK_PATTERN = orderData.filter({ action: "receipt" });
export const REFUND_CALLBACK_PATTERN = orderData.filter({ action: "refund" });
