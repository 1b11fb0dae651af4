import { PayoutApiError, type Quote } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { type BankEntry, type BankSearch, createBankSearch } from "#src/bot/rules/banks.js";
import { cached } from "#src/bot/rules/cached.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { reserveQuote } from "#src/bot/rules/quote-budget.js";
import {
  type Country,
  type CurrencyCode,
  currencyOfCountry,
  type FiatCurrencyCode,
} from "#src/money/index.js";
import { keys, type OrderRecord, QuoteBudgetExceeded, type RunContext } from "#src/store/index.js";
import { createPayableQuote } from "./payable-quote.ts";
import { buildQuoteRequest, type QuoteFigures, quoteFigures, verificationCode } from "./quote-rules.ts";
import type { PayoutBeneficiary } from "./recipient.ts";

/**
 * The payout flow's side effects (API calls, Redis). Each runs inside `FlowIo.call`, so once per step, never on
 * replay. Lookup lists are cached in Redis; only small results travel back into the conversation log.
 */

const BANKS_TTL_SECONDS = 24 * 3600;

/** GET /bank/bankcode?country=NG, cached for a day. */
function ngBanks(deps: Pick<BotDeps, "store" | "api">): Promise<BankEntry[]> {
  return cached(
    deps,
    keys.payoutBanks("NG"),
    BANKS_TTL_SECONDS,
    async () =>
      (await deps.api.listBanks("NG")).map(({ bankName, nipBankCode }) => ({ bankName, nipBankCode })),
    (banks) => banks.length > 0,
  );
}

/** The fuzzy index of each bank list, built once per list (the same list object while the cache is unchanged). */
const bankIndexes = new WeakMap<readonly BankEntry[], BankSearch>();

/** The NG bank search over the cached list: a step only searches, the index is built when the list changes. */
export async function ngBankSearch(deps: Pick<BotDeps, "store" | "api">): Promise<BankSearch> {
  const banks = await ngBanks(deps);
  let search = bankIndexes.get(banks);
  if (!search) {
    search = createBankSearch(banks);
    bankIndexes.set(banks, search);
  }
  return search;
}

/** GET /bank/bankcode?country=ZA, cached for a day. */
export function zaBanks(deps: BotDeps): Promise<string[]> {
  return cached(
    deps,
    keys.payoutBanks("ZA"),
    BANKS_TTL_SECONDS,
    () => deps.api.listZaBanks(),
    (names) => names.length > 0,
  );
}

interface QuoteOrderInput {
  /** Idempotency key: the press or message that asked for this quote. */
  key: string;
  country: Country;
  beneficiary: PayoutBeneficiary;
  amount: { minor: number; currency: CurrencyCode };
  label: string;
  chatId: number;
  userId: number;
  recipientId?: string;
  /** The money request this quote pays (src/bot/payout/requests). */
  requestId?: string;
  /**
   * The user action's reference at the API (default: derived from `key`). A "Try again" after a failed attempt
   * passes the failed attempt's reference with `resolveFirst`, so a quote that attempt did make is adopted, never
   * made twice.
   */
  customerReference?: string;
  resolveFirst?: boolean;
}

/**
 * What is kept of a new quote (in the idempotency record, for a day): only what the quote card and the invoice
 * show, not the whole Quote and OrderRecord.
 */
export interface QuotedOrder {
  orderId: string;
  corridor: Country;
  verificationCode: string;
  figures: QuoteFigures;
  /** The API's expiry of the quote (ISO). */
  expiry: string;
  /** BOLT11. */
  invoice: string;
  /** What the recipient would have got before rounding down to what the rail pays (target minor units). */
  roundedFrom?: number;
}

/**
 * What the flow itself keeps of a quote in its conversation log (there until the flow ends): the card's figures.
 * The invoice (~350 random characters, the largest part) is read back from the quote's record at Confirm.
 */
export type QuoteCard = Omit<QuotedOrder, "invoice">;

function quotedOrder(
  quote: Quote,
  order: OrderRecord,
  target: FiatCurrencyCode,
  roundedFrom: number | undefined,
): QuotedOrder {
  return {
    orderId: order.orderId,
    corridor: order.corridor,
    verificationCode: order.verificationCode,
    figures: quoteFigures(quote, target),
    expiry: quote.expiry,
    invoice: quote.invoice,
    ...(roundedFrom !== undefined ? { roundedFrom } : {}),
  };
}

/**
 * POST /quote and the order record, at most once per key (a double tap or a redelivered update gets the same
 * quote back). The record starts awaiting payment so the reconciler can expire its card. A claim left pending by a
 * process that died mid-quote is taken over (runOnce `takeover`): the listing is read first and the quote the dead
 * process made is adopted; only when the API lists none is one created. The user's quote budget is taken first
 * (a spent one throws QuoteBudgetExceeded before any API call, and runOnce keeps nothing for it).
 */
async function quoteAndRecord(deps: BotDeps, input: QuoteOrderInput): Promise<QuotedOrder> {
  const action = `payout:${input.key}`;
  const run = async (context: RunContext): Promise<QuotedOrder> => {
    await reserveQuote(deps, input.userId, action);
    try {
      return await quoteThenRecord(deps, input, context);
    } finally {
      await deps.store.quoteBudget.settle(input.userId, action);
    }
  };
  return deps.store.once.run<QuotedOrder>("quote", input.key, run, {
    ...(deps.processes ? { processes: deps.processes } : {}),
    takeover: true,
  });
}

async function quoteThenRecord(
  deps: BotDeps,
  input: QuoteOrderInput,
  { takeover }: RunContext,
): Promise<QuotedOrder> {
  const target = currencyOfCountry(input.country);
  const customerReference = input.customerReference ?? customerReferenceFor(input.key);
  const request = buildQuoteRequest({
    country: input.country,
    beneficiary: input.beneficiary,
    amount: input.amount,
    customerReference,
  });
  const { quote, adopted, roundedFrom } = await createPayableQuote(
    deps.api,
    input.country,
    { ...request, customerReference },
    { resolveFirst: (input.resolveFirst ?? false) || takeover },
  );
  if (adopted) deps.logger.info({ orderId: quote.orderId }, "uncertain quote read back and adopted");
  if (!quote.invoice) {
    // A Lightning quote without an invoice cannot be paid: treat it as an unreadable answer.
    throw new PayoutApiError({
      kind: "invalid_response",
      endpoint: "POST /quote",
      detail: "quote without invoice",
    });
  }
  const figures = quoteFigures(quote, target);
  const order = await deps.store.orders.create({
    orderId: quote.orderId ?? quote.id,
    quoteId: quote.id,
    hash: quote.hash || quote.id,
    kind: "payout",
    corridor: input.country,
    chatId: input.chatId,
    userId: input.userId,
    pay: { amount: figures.paySats, currency: "BTCSAT" },
    receive: { amount: figures.receive, currency: target },
    asked: { amount: input.amount.minor, currency: input.amount.currency },
    fee: { amount: figures.feeSats, currency: "BTCSAT" },
    recipientLabel: input.label,
    beneficiary: { ...input.beneficiary } as Record<string, unknown>,
    verificationCode: verificationCode(quote.id),
    expiresAt: quote.expiry,
    ...(input.recipientId ? { recipientId: input.recipientId } : {}),
    ...(input.requestId ? { requestId: input.requestId } : {}),
  });
  if (input.recipientId) await deps.store.recipients.touch(input.userId, input.recipientId);
  deps.logger.info({ orderId: order.orderId, corridor: input.country, takeover }, "payout quoted");
  return quotedOrder(quote, order, target, roundedFrom);
}

/** The user's quote budget is spent: no quote was asked for; the next is possible at `retryAtMs` (API clock). */
interface QuoteRefused {
  refused: "budget";
  retryAtMs: number;
}

/** quoteAndRecord for the conversation log: the card without the invoice, or the budget's refusal. */
export async function quoteCard(deps: BotDeps, input: QuoteOrderInput): Promise<QuoteCard | QuoteRefused> {
  try {
    const { invoice: _invoice, ...card } = await quoteAndRecord(deps, input);
    return card;
  } catch (error) {
    if (!(error instanceof QuoteBudgetExceeded)) throw error;
    deps.logger.info({ userId: input.userId }, "quote refused: the user's quote budget is spent");
    return { refused: "budget", retryAtMs: error.retryAtMs };
  }
}

export class QuoteGoneError extends Error {
  constructor(key: string) {
    super(`no recorded quote for ${key}`);
    this.name = "QuoteGoneError";
  }
}

/**
 * The quote already made under `key` (its record lives a day; a quote holds 5 minutes). Never makes one: with
 * no record the action throws, which runOnce turns back into "no record" (it keeps nothing for a failure).
 */
export function recordedQuote(deps: Pick<BotDeps, "store">, key: string): Promise<QuotedOrder> {
  return deps.store.once.run<QuotedOrder>("quote", key, () => {
    throw new QuoteGoneError(key);
  });
}

export type ConfirmResult = { ok: true; order: OrderRecord } | { ok: false; reason: "expired" | "gone" };

/**
 * Mark the order confirmed (once); refuses an order the reconciler already moved on. Only our own store is touched
 * and the action reads the order before writing (a confirmed order stays confirmed), so a claim a dead process left
 * pending is taken over at once (nothing at the API to wait for).
 */
export function confirmOrder(deps: BotDeps, orderId: string, nowIso: string): Promise<ConfirmResult> {
  const run = async (): Promise<ConfirmResult> => {
    const current = await deps.store.orders.get(orderId);
    if (!current) return { ok: false, reason: "gone" };
    if (current.confirmedAt) return { ok: true, order: current };
    if (current.stage !== "awaiting_payment") return { ok: false, reason: "expired" };
    const order = await deps.store.orders.annotate(orderId, { confirmedAt: nowIso });
    return order ? { ok: true, order } : { ok: false, reason: "gone" };
  };
  return deps.store.once.run("confirm", orderId, run, {
    ...(deps.processes ? { processes: deps.processes } : {}),
    takeover: true,
    settleMs: 0,
  });
}
