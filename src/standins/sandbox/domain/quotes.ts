import { encodeInvoice, newPaymentSecrets } from "#src/standins/sandbox/bolt11.js";
import type { Core } from "#src/standins/sandbox/core.js";
import { badRequest } from "#src/standins/sandbox/http/errors.js";
import * as ids from "#src/standins/sandbox/ids.js";
import { corridorOf } from "#src/standins/sandbox/pricing.js";
import { parseBeneficiary } from "#src/standins/sandbox/schemas/beneficiary.js";
import type { QuoteRequest } from "#src/standins/sandbox/schemas/requests.js";
import {
  type Currency,
  currencyOf,
  formatMajor,
  type Speed,
  toSafe,
  type Unit,
} from "#src/standins/sandbox/units.js";
import { decodeInvoice, InvoiceError } from "./invoices.ts";
import type { Beneficiary, PaymentMethod, QuoteRecord, VirtualAccount } from "./state.ts";

const LIGHTNING_EXPIRY_MS = 5 * 60_000;
const BANKTRANSFER_EXPIRY_MS = 10 * 60_000;
const MIN_NGN_PAYOUT_KOBO = 200_000n;
const MIN_ONCHAIN_SATS = 6_000n;
/** KES, ZAR and GHS payouts: the equivalent of 2 USD. */
const MIN_PAYOUT_USD_CENTS = 200n;
/** NGN→ZAR: at least 50 rand (api-behaviour-notes §4). */
const MIN_NGN_TO_ZAR_CENTS = 5_000n;

const VIRTUAL_ACCOUNT_BANKS = [
  { bankName: "GLOBUS BANK", bankCode: "000027" },
  { bankName: "WEMA BANK", bankCode: "000017" },
] as const;

export interface QuoteParams {
  amount: bigint;
  sourceCurrency: Unit;
  targetCurrency: Unit;
  paymentMethod: PaymentMethod;
  paymentCurrency: Unit;
  autopayout: boolean;
  customerInternalFee: number;
  customerReference?: string;
  speed?: Speed;
  beneficiary?: Beneficiary;
  paymentLinkId?: string;
  feeOnTop?: boolean;
}

/** Business rules of POST /quote on top of the schema (spec 4, notes §6 and §8). */
export function quoteParamsFromRequest(core: Core, request: QuoteRequest): QuoteParams {
  const source = currencyOf(request.sourceCurrency);
  const target = currencyOf(request.targetCurrency);
  if (
    request.paymentCurrency !== request.sourceCurrency &&
    request.paymentCurrency !== request.targetCurrency
  ) {
    throw badRequest("Invalid payment currency: paymentCurrency must equal sourceCurrency or targetCurrency");
  }
  if (!corridorOf(source, target)) {
    throw badRequest(`Unsupported currency pair: ${request.sourceCurrency} → ${request.targetCurrency}`);
  }
  const expectedMethod: PaymentMethod = source === "BTC" ? "LIGHTNING" : "BANKTRANSFER";
  if (request.paymentMethod !== expectedMethod) {
    throw badRequest(
      `Invalid payment method: ${request.sourceCurrency} quotes are paid by ${expectedMethod}`,
    );
  }
  const autopayout = request.autopayout ?? core.state.account.settings.autopayout;
  if (target === "ZAR" && !autopayout) throw badRequest("ZAR payouts require autopayout: true");
  let beneficiary: Beneficiary | undefined;
  // With autopayout false the beneficiary is ignored and the funds stay in the wallet (notes §6).
  if (autopayout && request.beneficiary !== undefined && request.beneficiary !== null) {
    beneficiary = parseBeneficiary(target, request.beneficiary, core.banks);
  }
  if (autopayout && !beneficiary && target !== "BTC") {
    throw badRequest("beneficiary is required for a payout quote (or send autopayout: false)");
  }
  if (beneficiary?.kind === "onchain" && !request.speed) {
    throw badRequest("speed is required for on-chain quotes (slow, medium or fast)");
  }
  if (beneficiary?.kind === "lninvoice") checkLnInvoice(core, beneficiary.lnInvoice, request);
  return {
    amount: request.amount,
    sourceCurrency: request.sourceCurrency,
    targetCurrency: request.targetCurrency,
    paymentMethod: request.paymentMethod,
    paymentCurrency: request.paymentCurrency,
    autopayout,
    customerInternalFee: request.customerInternalFee ?? 0,
    customerReference: request.customerReference,
    speed: beneficiary?.kind === "onchain" ? request.speed : undefined,
    beneficiary,
  };
}

function checkLnInvoice(core: Core, invoice: string, request: QuoteRequest): void {
  if (request.paymentCurrency !== request.targetCurrency) {
    throw badRequest("Autopayout requires payment currency to be target currency");
  }
  let decoded: ReturnType<typeof decodeInvoice>;
  try {
    decoded = decodeInvoice(invoice);
  } catch (error) {
    if (error instanceof InvoiceError) throw badRequest(`beneficiary.lnInvoice: ${error.message}`);
    throw error;
  }
  if (decoded.expiresAt * 1000 <= core.clock.now())
    throw badRequest("beneficiary.lnInvoice: Invoice expired");
  if (decoded.amountSats === null || BigInt(decoded.amountSats) !== request.amount) {
    throw badRequest("Invoice amount mismatch: the invoice amount must equal amount");
  }
}

function minimumCheck(
  core: Core,
  source: Currency,
  target: Currency,
  amountInTarget: bigint,
  params: QuoteParams,
) {
  const too = (detail: string) => badRequest(`Amount too small: ${detail}`);
  if (amountInTarget <= 0n) throw too("nothing would be left after fees");
  if (target === "NGN" && amountInTarget < MIN_NGN_PAYOUT_KOBO) {
    throw too(`the minimum NGN payout is 2000 NGN (${MIN_NGN_PAYOUT_KOBO} kobo)`);
  }
  if (target === "KES" || target === "ZAR" || target === "GHS") {
    let minimum = core.pricing.usdCentsIn(target, MIN_PAYOUT_USD_CENTS);
    if (target === "ZAR" && source === "NGN" && minimum < MIN_NGN_TO_ZAR_CENTS)
      minimum = MIN_NGN_TO_ZAR_CENTS;
    if (amountInTarget < minimum) {
      throw too(
        `the minimum ${target} payout is the equivalent of 2 USD (${minimum} minor units = ${formatMajor(minimum, target)} ${target})`,
      );
    }
  }
  if (target === "BTC" && params.beneficiary?.kind === "onchain" && amountInTarget < MIN_ONCHAIN_SATS) {
    throw too(`the minimum on-chain purchase is ${MIN_ONCHAIN_SATS} sats`);
  }
}

/** A fresh pay-in account per bank-transfer quote, alternating GLOBUS and WEMA. */
function nextVirtualAccount(core: Core): VirtualAccount {
  const bank =
    VIRTUAL_ACCOUNT_BANKS[core.state.quotes.size % VIRTUAL_ACCOUNT_BANKS.length] ?? VIRTUAL_ACCOUNT_BANKS[0];
  return { ...bank, accountNumber: ids.accountNumber(), accountName: "Mava Digital Solutions Limited" };
}

/** The priced amounts of a quote, after its minimum checks (throws "Amount too small"). */
interface PricedQuote {
  amountInSource: number;
  feesInSource: number;
  amountInTarget: number;
  feesInTarget: number;
  /** The expected on-chain network fee in sats (0 unless the beneficiary is on-chain). */
  networkFee: number;
}

export function priceQuote(core: Core, params: QuoteParams): PricedQuote {
  const source = currencyOf(params.sourceCurrency);
  const target = currencyOf(params.targetCurrency);
  const corridor = corridorOf(source, target);
  if (!corridor)
    throw badRequest(`Unsupported currency pair: ${params.sourceCurrency} → ${params.targetCurrency}`);
  const networkFee =
    params.beneficiary?.kind === "onchain" && params.speed
      ? core.pricing.model.onchainFeeSats[params.speed]
      : 0;
  const math = core.pricing.quote({
    source,
    target,
    corridor,
    amount: params.amount,
    amountIn: params.paymentCurrency === params.targetCurrency ? "target" : "source",
    networkFee: BigInt(networkFee),
    feeOnTop: params.feeOnTop,
  });
  minimumCheck(core, source, target, math.amountInTarget, params);
  return {
    amountInSource: toSafe(math.amountInSource),
    feesInSource: toSafe(math.feesInSource),
    amountInTarget: toSafe(math.amountInTarget),
    feesInTarget: toSafe(math.feesInTarget),
    networkFee,
  };
}

/** Price, persist and schedule the expiry of a quote and its order. */
export function createQuote(
  core: Core,
  params: QuoteParams,
  onExpired?: (quote: QuoteRecord) => void,
): QuoteRecord {
  const target = currencyOf(params.targetCurrency);
  const priced = priceQuote(core, params);
  return storeQuote(
    core,
    {
      sourceCurrency: params.sourceCurrency,
      targetCurrency: params.targetCurrency,
      paymentCurrency: params.paymentCurrency,
      paymentMethod: params.paymentMethod,
      exchangeRate: core.pricing.exchangeRate(target),
      usdToTargetCurrencyRate: core.pricing.usdToTarget(target),
      amountInSource: priced.amountInSource,
      feesInSource: priced.feesInSource,
      amountInTarget: priced.amountInTarget,
      feesInTarget: priced.feesInTarget,
      customerInternalFee: params.customerInternalFee,
      total: priced.amountInSource + params.customerInternalFee,
      estimatedRoutingFee: priced.networkFee,
      speed: params.speed,
      customerReference: params.customerReference,
      autopayout: params.autopayout,
      beneficiary: params.beneficiary,
      paymentLinkId: params.paymentLinkId,
    },
    onExpired,
  );
}

/** A priced quote before it gets its ids, clock stamps, invoice or pay-in account. */
export type QuoteDraft = Omit<
  QuoteRecord,
  | "id"
  | "orderId"
  | "invoice"
  | "hash"
  | "preimage"
  | "virtualAccount"
  | "createdAt"
  | "updatedAt"
  | "expiresAt"
>;

/**
 * Give a priced quote its order id, its Lightning invoice (a signed signet BOLT11 for `total` sats) or its
 * bank-transfer pay-in account, store it with its PENDING order, and schedule its expiry.
 */
export function storeQuote(
  core: Core,
  draft: QuoteDraft,
  onExpired?: (quote: QuoteRecord) => void,
): QuoteRecord {
  const now = core.clock.now();
  const { state } = core;
  const orderId = ids.orderId((id) => state.orders.has(id));
  const quote: QuoteRecord = {
    ...draft,
    id: ids.uuid(),
    orderId,
    invoice: "",
    hash: "",
    createdAt: now,
    updatedAt: now,
    expiresAt: now + (draft.paymentMethod === "LIGHTNING" ? LIGHTNING_EXPIRY_MS : BANKTRANSFER_EXPIRY_MS),
  };
  if (draft.paymentMethod === "LIGHTNING") {
    const secrets = newPaymentSecrets(ids.random);
    quote.hash = secrets.paymentHashHex;
    quote.preimage = secrets.preimage;
    quote.invoice = encodeInvoice({
      amountSats: quote.total,
      paymentHash: secrets.paymentHash,
      paymentSecret: secrets.paymentSecret,
      description: `${draft.paymentLinkId ? "Sandbox payment link order" : "Sandbox payout quote"} ${orderId}`,
      timestamp: Math.floor(now / 1000),
      expirySeconds: LIGHTNING_EXPIRY_MS / 1000,
    });
  } else {
    quote.hash = ids.randomHex(24);
    quote.virtualAccount = nextVirtualAccount(core);
    if (draft.beneficiary?.kind === "onchain") quote.invoice = draft.beneficiary.onChainAddress;
  }
  state.quotes.set(quote.id, quote);
  state.orders.set(orderId, {
    orderId,
    quoteId: quote.id,
    status: "PENDING",
    paymentLinkId: draft.paymentLinkId,
    createdAt: now,
    updatedAt: now,
  });
  core.scheduler.schedule(quote.expiresAt, `expire quote ${quote.id}`, () => {
    const order = state.orders.get(orderId);
    if (quote.paidAt !== undefined || order?.status !== "PENDING") return;
    order.status = "EXPIRED";
    order.updatedAt = core.clock.now();
    quote.updatedAt = order.updatedAt;
    onExpired?.(quote);
  });
  return quote;
}

/** Find a quote by id or by order id; expired or unknown → undefined. */
export function findQuote(core: Core, by: { quoteId?: string; orderId?: string }): QuoteRecord | undefined {
  if (by.quoteId) return core.state.quotes.get(by.quoteId);
  const order = by.orderId ? core.state.orders.get(by.orderId) : undefined;
  return order ? core.state.quotes.get(order.quoteId) : undefined;
}
