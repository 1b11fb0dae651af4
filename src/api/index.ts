/** Public surface of the payout API client. No grammY here: the bot, events and main import from this file. */
export { createPayoutApi, PayoutApi } from "./client.ts";
export {
  isPayoutApiError,
  PAYOUT_API_ERROR_KINDS,
  PayoutApiError,
  type PayoutApiErrorKind,
} from "./errors.ts";
export type { PayoutApiCall } from "./http.ts";
export { createQuoteOnce } from "./quote-once.ts";
export * from "./schemas/beneficiary.ts";
export { minorAmount } from "./schemas/common.ts";
export * from "./schemas/lookup.ts";
export * from "./schemas/order.ts";
export * from "./schemas/payment-link.ts";
export * from "./schemas/quote.ts";
export * from "./schemas/requests.ts";
export * from "./schemas/transaction.ts";
export * from "./schemas/user.ts";
export * from "./schemas/wallet.ts";
export * from "./schemas/webhook.ts";
export { ServerClock } from "./server-clock.ts";
export * from "./webhook-events.ts";
