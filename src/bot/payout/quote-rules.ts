import { createHash } from "node:crypto";
import type { Quote, QuoteRequest } from "#src/api/index.js";
import {
  COUNTRIES,
  type Country,
  type CurrencyCode,
  currencyOfCountry,
  type FiatCurrencyCode,
} from "#src/money/index.js";
import { quoteAmounts } from "#src/orders/quote-math.js";
import type { PayoutBeneficiary } from "./recipient.ts";

/** Corridor facts, limits, the quote request and the figures a quote card shows. Pure. */

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
