/**
 * Callback data of the buttons the status and quote cards carry. Format (ASCII, ≤ 64 bytes, Telegram's limit):
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
const ORDER_CALLBACK_PREFIX = "order:";
const ORDER_ID = /^[A-Za-z0-9_-]{1,48}$/;

type OrderCallback = { action: "requote" | "receipt" | "refund"; orderId: string };

function orderCallbackData(action: OrderCallback["action"], orderId: string): string {
  if (!ORDER_ID.test(orderId)) throw new RangeError(`order id not usable in callback data: ${orderId}`);
  return `${ORDER_CALLBACK_PREFIX}${action}:${orderId}`;
}

export function requoteCallbackData(orderId: string): string {
  return orderCallbackData("requote", orderId);
}

export function receiptCallbackData(orderId: string): string {
  return orderCallbackData("receipt", orderId);
}

export function refundCallbackData(orderId: string): string {
  return orderCallbackData("refund", orderId);
}

/** Parse what a button sent back; undefined for anything that is not ours or is malformed. */
export function parseOrderCallback(data: string | undefined): OrderCallback | undefined {
  if (!data?.startsWith(ORDER_CALLBACK_PREFIX)) return undefined;
  const [, action, orderId, ...rest] = data.split(":");
  if (rest.length > 0 || !orderId || !ORDER_ID.test(orderId)) return undefined;
  return action === "requote" || action === "receipt" || action === "refund"
    ? { action, orderId }
    : undefined;
}

/** A regular expression grammY's `bot.callbackQuery()` can match on. */
export const REQUOTE_CALLBACK_PATTERN = /^order:requote:([A-Za-z0-9_-]{1,48})$/;
export const RECEIPT_CALLBACK_PATTERN = /^order:receipt:([A-Za-z0-9_-]{1,48})$/;
export const REFUND_CALLBACK_PATTERN = /^order:refund:([A-Za-z0-9_-]{1,48})$/;
