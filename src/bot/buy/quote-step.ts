import type { PayoutApiErrorKind, Quote, Speed } from "#src/api/index.js";
import { createQuoteOnce, PayoutApiError } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { shortAddress } from "#src/bot/rules/bitcoin-address.js";
import { priceServiceFor } from "#src/bot/rules/price.js";
import { reserveQuote } from "#src/bot/rules/quote-budget.js";
import { payInOf } from "#src/orders/pay-in.js";
import { quoteAmounts } from "#src/orders/quote-math.js";
import { InFlightError, type OrderRecord, QuoteBudgetExceeded, type RunContext } from "#src/store/index.js";
import type { BuyAmount } from "./screens.ts";
import { newVerificationCode } from "./verification-code.ts";

/**
 * Creating the quote and the order record together, at most once per key (a double tap, a redelivered update or
 * a replay gets the stored result). Runs inside conversation.external, so it returns plain JSON: failures are
 * values, not thrown errors (a thrown PayoutApiError would not survive the conversation's serialisation).
 */
export type QuoteOutcome =
  | { ok: true; order: OrderRecord }
  | {
      ok: false;
      kind: PayoutApiErrorKind | "in_flight" | "incomplete" | "unexpected" | "quote_budget";
      apiMessage?: string;
      retryAfterMs?: number;
      /** quote_budget: when the user's next quote is possible (API clock, ms). */
      retryAtMs?: number;
      /** Whether a quote was made is still unknown (the API could not be read back). */
      outcomeUnknown?: boolean;
    };

interface QuoteInput {
  key: string;
  /** The user action's reference at the API, kept across "Try again" (with resolveFirst) so it quotes once. */
  customerReference: string;
  resolveFirst: boolean;
  chatId: number;
  userId: number;
  address: string;
  speed: Speed;
  amount: BuyAmount;
}

interface Stored {
  order: OrderRecord;
}

class IncompleteQuoteError extends Error {}

export async function createBuyQuote(deps: BotDeps, input: QuoteInput): Promise<QuoteOutcome> {
  const action = `buy:${input.key}`;
  try {
    // A claim a dead process left pending is taken over: read back first, adopt its quote, create only if none.
    // The user's quote budget is taken before the API is asked (a spent one: nothing asked, nothing kept).
    const run = async (context: RunContext): Promise<Stored> => {
      await reserveQuote(deps, input.userId, action);
      try {
        return await quoteThenRecord(deps, input, context);
      } finally {
        await deps.store.quoteBudget.settle(input.userId, action);
      }
    };
    const stored = await deps.store.once.run<Stored>("quote", action, run, {
      ...(deps.processes ? { processes: deps.processes } : {}),
      takeover: true,
    });
    return { ok: true, ...stored };
  } catch (error) {
    if (error instanceof QuoteBudgetExceeded) {
      deps.logger.info({ userId: input.userId }, "buy quote refused: the user's quote budget is spent");
      return { ok: false, kind: "quote_budget", retryAtMs: error.retryAtMs };
    }
    return failedOutcome(deps, error);
  }
}

async function quoteThenRecord(deps: BotDeps, input: QuoteInput, { takeover }: RunContext): Promise<Stored> {
  const { quote, adopted } = await createQuoteOnce(
    deps.api,
    {
      amount: input.amount.minor,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: input.amount.currency,
      autopayout: true,
      speed: input.speed,
      customerReference: input.customerReference,
      beneficiary: { onChainAddress: input.address },
    },
    { resolveFirst: input.resolveFirst || takeover },
  );
  if (adopted) deps.logger.info({ orderId: quote.orderId }, "uncertain buy quote read back and adopted");
  const order = await deps.store.orders.create(orderFromQuote(quote, input, await apiRatePerBtc(deps)));
  return { order };
}

/**
 * The API's exchange rate for the card (kobo per BTC): the quote of a purchase says `exchangeRate: 1` (notes §6), so
 * it is the API's price of 1 BTC, as /price shows it. Without it the card shows the quote's own rate instead.
 */
async function apiRatePerBtc(deps: BotDeps): Promise<number | undefined> {
  try {
    return (await priceServiceFor(deps).get("NG")).perBtc;
  } catch (error) {
    deps.logger.warn({ err: error }, "no price for the buy card's exchange rate");
    return undefined;
  }
}

/** A failed quote as the flow's plain JSON outcome (logged here). */
function failedOutcome(deps: BotDeps, error: unknown): Extract<QuoteOutcome, { ok: false }> {
  if (error instanceof PayoutApiError) {
    deps.logger.warn({ err: error, kind: error.kind }, "buy quote failed");
    return {
      ok: false,
      kind: error.kind,
      ...(error.apiMessage ? { apiMessage: error.apiMessage } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      ...(error.outcomeUnknown ? { outcomeUnknown: true } : {}),
    };
  }
  if (error instanceof InFlightError) return { ok: false, kind: "in_flight" };
  if (error instanceof IncompleteQuoteError) {
    deps.logger.error({ err: error }, "buy quote without pay-in details");
    return { ok: false, kind: "incomplete" };
  }
  deps.logger.error({ err: error }, "buy quote failed unexpectedly");
  return { ok: false, kind: "unexpected" };
}

function orderFromQuote(
  quote: Quote,
  input: QuoteInput,
  ratePerBtc: number | undefined,
): Parameters<BotDeps["store"]["orders"]["create"]>[0] {
  const payIn = payInOf(quote);
  if (!quote.orderId || !payIn) {
    // Without the virtual account the user has nowhere to pay: never show such a quote.
    throw new IncompleteQuoteError(`quote ${quote.id} lacks its order id or pay-in account`);
  }
  // The same arithmetic as every card (src/orders/quote-math.ts): what is paid, fees included, and the fee.
  const { pay, fee } = quoteAmounts(quote);
  const networkFee = quote.estimatedRoutingFee;
  return {
    orderId: quote.orderId,
    quoteId: quote.id,
    hash: quote.hash ?? quote.id,
    kind: "buy",
    corridor: "NG",
    chatId: input.chatId,
    userId: input.userId,
    pay: { amount: pay, currency: "NGNKOBO" },
    receive: { amount: quote.amountInTargetCurrency, currency: "BTCSAT" },
    fee: { amount: fee, currency: "NGNKOBO" },
    recipientLabel: shortAddress(input.address),
    beneficiary: { onChainAddress: input.address },
    verificationCode: newVerificationCode(),
    speed: input.speed,
    ...(networkFee !== undefined && networkFee >= 0 ? { networkFeeSats: networkFee } : {}),
    ...(ratePerBtc !== undefined ? { ratePerBtc } : {}),
    payIn,
    expiresAt: quote.expiry,
  };
}

/** What the flow does after a failed quote. */
type QuoteFailureRoute = "amount" | "address" | "retry" | "stop";

export function routeQuoteFailure(outcome: Extract<QuoteOutcome, { ok: false }>): QuoteFailureRoute {
  const message = outcome.apiMessage ?? "";
  switch (outcome.kind) {
    case "validation":
      if (/address/i.test(message)) return "address";
      return "amount";
    case "auth":
    case "not_found":
    case "quote_budget":
      return "stop";
    default:
      return "retry";
  }
}

export const isBelowMinimum = (outcome: Extract<QuoteOutcome, { ok: false }>) =>
  outcome.kind === "validation" && /too small|minimum/i.test(outcome.apiMessage ?? "");
