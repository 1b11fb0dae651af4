import { PayoutApiError, type Quote, type QuoteRequest } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { reserveQuote } from "#src/bot/rules/quote-budget.js";
import { CORRIDORS, COUNTRIES, type CorridorCurrencyCode } from "#src/corridors/index.js";
import { type Country, currencyOfCountry } from "#src/money/index.js";
import { payInOf } from "#src/orders/pay-in.js";
import { quoteAmounts } from "#src/orders/quote-math.js";
import { type OrderRecord, QuoteBudgetExceeded, type RunContext } from "#src/store/index.js";
import { createPayableQuote } from "../payable-quote.ts";
import { payoutOrderOf } from "../quote-orders.ts";
import type { PayoutBeneficiary } from "../recipient.ts";

/**
 * A naira-funded payout's quote and its order (notes §6, "NGN-funded payouts"): the payer transfers naira to the
 * quote's own virtual account and the recipient gets shillings, rand or cedis. The order is a payout whose `pay`
 * and `fee` are in kobo and whose `payIn` is the account to transfer to; the quote is made at most once per key.
 */

/** The corridors a payout may be paid in naira (Nigeria's own payouts stay Lightning-paid). */
export const NAIRA_FUNDED: readonly Country[] = COUNTRIES.filter(
  (country) => CORRIDORS[country].nairaFunding !== null,
);

/** The smallest target amount of a naira-funded payout: the corridor's Lightning minimum, or its own if higher. */
export function nairaMinimum(country: Country, lightning: number | undefined): number | undefined {
  const own = CORRIDORS[country].nairaFunding?.minimumMinor ?? 0;
  return own > 0 ? Math.max(lightning ?? 0, own) : lightning;
}

export interface NairaQuoteInput {
  /** Idempotency key: the message or press that asked for this quote. */
  key: string;
  country: Country;
  beneficiary: PayoutBeneficiary;
  /** In the target currency (what the recipient gets) or in kobo (what the payer transfers). */
  amount: { minor: number; currency: CorridorCurrencyCode };
  label: string;
  chatId: number;
  userId: number;
  recipientId?: string;
  /** The money request this payout pays (its token), if any. */
  requestId?: string;
  customerReference: string;
  resolveFirst: boolean;
}

/** POST /quote body of a naira-funded payout. */
export function buildNairaQuoteRequest(input: NairaQuoteInput): QuoteRequest & { customerReference: string } {
  return {
    amount: input.amount.minor,
    sourceCurrency: "NGNKOBO",
    targetCurrency: currencyOfCountry(input.country),
    paymentMethod: "BANKTRANSFER",
    paymentCurrency: input.amount.currency,
    autopayout: true,
    customerReference: input.customerReference,
    beneficiary: input.beneficiary,
  };
}

export type NairaQuoted =
  | { order: OrderRecord; roundedFrom?: number }
  | { refused: "budget"; retryAtMs: number };

/** The quote and its order, once per key; a spent quote budget is a value (nothing asked, nothing kept). */
export async function nairaQuote(deps: BotDeps, input: NairaQuoteInput): Promise<NairaQuoted> {
  const action = `payout-ngn:${input.key}`;
  const run = async (context: RunContext) => {
    await reserveQuote(deps, input.userId, action);
    try {
      return await quoteThenRecord(deps, input, context);
    } finally {
      await deps.store.quoteBudget.settle(input.userId, action);
    }
  };
  try {
    return await deps.store.once.run("quote", action, run, {
      ...(deps.processes ? { processes: deps.processes } : {}),
      takeover: true,
    });
  } catch (error) {
    if (!(error instanceof QuoteBudgetExceeded)) throw error;
    deps.logger.info({ userId: input.userId }, "naira quote refused: the user's quote budget is spent");
    return { refused: "budget", retryAtMs: error.retryAtMs };
  }
}

async function quoteThenRecord(
  deps: BotDeps,
  input: NairaQuoteInput,
  { takeover }: RunContext,
): Promise<{ order: OrderRecord; roundedFrom?: number }> {
  const request = buildNairaQuoteRequest({
    ...input,
    customerReference: input.customerReference || customerReferenceFor(input.key),
  });
  const { quote, adopted, roundedFrom } = await createPayableQuote(deps.api, input.country, request, {
    resolveFirst: input.resolveFirst || takeover,
  });
  if (adopted) deps.logger.info({ orderId: quote.orderId }, "uncertain naira quote read back and adopted");
  const order = await deps.store.orders.create(orderFromQuote(quote, input));
  if (input.recipientId) await deps.store.recipients.touch(input.userId, input.recipientId);
  deps.logger.info({ orderId: order.orderId, corridor: input.country, takeover }, "naira payout quoted");
  return { order, ...(roundedFrom !== undefined ? { roundedFrom } : {}) };
}

function orderFromQuote(
  quote: Quote,
  input: NairaQuoteInput,
): Parameters<BotDeps["store"]["orders"]["create"]>[0] {
  const payIn = payInOf(quote);
  if (!payIn) {
    // Without the virtual account the payer has nowhere to transfer to: never show such a quote.
    throw new PayoutApiError({
      kind: "invalid_response",
      endpoint: "POST /quote",
      detail: "bank-transfer quote without its pay-in account",
    });
  }
  // The same arithmetic as every card (src/orders/quote-math.ts): the exact kobo to transfer and the fee in it.
  const { pay, fee, receive } = quoteAmounts(quote);
  return {
    ...payoutOrderOf(quote, input),
    pay: { amount: pay, currency: "NGNKOBO" },
    receive: { amount: receive, currency: currencyOfCountry(input.country) },
    fee: { amount: fee, currency: "NGNKOBO" },
    payIn,
  };
}
