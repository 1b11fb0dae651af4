import { createHash } from "node:crypto";
import { PayoutApiError, type Quote, type QuoteRequest } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { reserveQuote } from "#src/bot/rules/quote-budget.js";
import {
  COUNTRIES,
  type Country,
  type CurrencyCode,
  currencyOfCountry,
  type FiatCurrencyCode,
} from "#src/money/index.js";
import { quoteAmounts } from "#src/orders/quote-math.js";
import { type OrderRecord, QuoteBudgetExceeded, type RunContext } from "#src/store/index.js";
import { createPayableQuote } from "./payable-quote.ts";
import type { PayoutBeneficiary } from "./recipient.ts";

/**
 * A payout's quote and its order: the pure rules (request, figures, deadline, check code), then the side effects
 * (API calls, Redis). Each side effect runs inside `FlowIo.call`, so once per step, never on replay; only small
 * results travel back into the conversation log.
 */

export const PAYOUT_COUNTRIES: readonly Country[] = COUNTRIES;

/** Quotes and invoices are valid for 5 minutes (spec 2.1). */
const QUOTE_VALIDITY_MS = 5 * 60_000;

interface QuoteInput {
  country: Country;
  beneficiary: PayoutBeneficiary;
  amount: { minor: number; currency: CurrencyCode };
  customerReference: string;
}

/** POST /quote body of a Lightning payout (use cases 1 and 2 of spec 4; ZAR and GHS by the same shape). */
export function buildQuoteRequest(input: QuoteInput): QuoteRequest {
  return {
    amount: input.amount.minor,
    sourceCurrency: "BTCSAT",
    targetCurrency: currencyOfCountry(input.country),
    paymentMethod: "LIGHTNING",
    paymentCurrency: input.amount.currency,
    autopayout: true,
    customerReference: input.customerReference,
    beneficiary: input.beneficiary,
  };
}

export interface QuoteFigures {
  /** Sats to pay, fees included. */
  paySats: number;
  feeSats: number;
  /** What the recipient gets, in target minor units. */
  receive: number;
  target: FiatCurrencyCode;
}

/** The figures a card shows, from the quote's amounts (see src/orders/quote-math.ts: they always reconcile). */
export function quoteFigures(quote: Quote, target: FiatCurrencyCode): QuoteFigures {
  const { pay, fee, receive } = quoteAmounts(quote);
  return { paySats: pay, feeSats: fee, receive, target };
}

/**
 * When the quote stops holding: the API's own `expiry`, compared everywhere with the API's clock (BotDeps.now), so
 * the card, the invoice, the status card and the Confirm check all name the same instant. An unreadable expiry
 * counts as the documented 5 minutes from when the quote arrived.
 */
export function quoteDeadlineMs(expiry: string, receivedAtMs: number): number {
  const expiresAt = Date.parse(expiry);
  return Number.isNaN(expiresAt) ? receivedAtMs + QUOTE_VALIDITY_MS : expiresAt;
}

/** 272_000 → "4:32". */
export function formatCountdown(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

const CODE_EMOJI = [
  "🦁",
  "🐘",
  "🦒",
  "🦓",
  "🐢",
  "🐬",
  "🦋",
  "🌵",
  "🌻",
  "🍉",
  "🍋",
  "🍍",
  "🥭",
  "🌽",
  "🍄",
  "⚽",
  "🎸",
  "🥁",
  "🚲",
  "🚀",
  "⛵",
  "🏠",
  "🔑",
  "🎈",
  "⭐",
  "🌙",
  "🌈",
  "🔥",
  "💎",
  "🎁",
  "🐝",
  "🦉",
] as const;

/** Two emoji derived from the quote id: shown on the quote card and again on the invoice (anti-impersonation). */
export function verificationCode(quoteId: string): string {
  const digest = createHash("sha256").update(quoteId).digest();
  const first = CODE_EMOJI[(digest[0] ?? 0) % CODE_EMOJI.length];
  const second = CODE_EMOJI[(digest[1] ?? 0) % CODE_EMOJI.length];
  return `${first}${second}`;
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
    ...payoutOrderOf(quote, input),
    pay: { amount: figures.paySats, currency: "BTCSAT" },
    receive: { amount: figures.receive, currency: target },
    fee: { amount: figures.feeSats, currency: "BTCSAT" },
  });
  if (input.recipientId) await deps.store.recipients.touch(input.userId, input.recipientId);
  deps.logger.info({ orderId: order.orderId, corridor: input.country, takeover }, "payout quoted");
  return quotedOrder(quote, order, target, roundedFrom);
}

/** What identifies a payout order and its recipient, however it is paid (its amounts are the caller's). */
export function payoutOrderOf(
  quote: Quote,
  input: {
    country: Country;
    chatId: number;
    userId: number;
    amount: { minor: number; currency: CurrencyCode };
    label: string;
    beneficiary: PayoutBeneficiary;
    recipientId?: string | undefined;
    requestId?: string | undefined;
  },
) {
  return {
    orderId: quote.orderId ?? quote.id,
    quoteId: quote.id,
    hash: quote.hash || quote.id,
    kind: "payout" as const,
    corridor: input.country,
    chatId: input.chatId,
    userId: input.userId,
    asked: { amount: input.amount.minor, currency: input.amount.currency },
    recipientLabel: input.label,
    beneficiary: { ...input.beneficiary } as Record<string, unknown>,
    verificationCode: verificationCode(quote.id),
    expiresAt: quote.expiry,
    ...(input.recipientId ? { recipientId: input.recipientId } : {}),
    ...(input.requestId ? { requestId: input.requestId } : {}),
  };
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
