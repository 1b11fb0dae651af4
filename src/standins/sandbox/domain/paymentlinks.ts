import type { z } from "zod";
import { type Core, iso } from "#src/standins/sandbox/core.js";
import { badRequest } from "#src/standins/sandbox/http/errors.js";
import * as ids from "#src/standins/sandbox/ids.js";
import { parseOnChainAddress } from "#src/standins/sandbox/schemas/beneficiary.js";
import type { paymentLinkRequest } from "#src/standins/sandbox/schemas/requests.js";
import { PROFILE } from "./account.ts";
import { createQuote, priceQuote, type QuoteDraft, type QuoteParams, storeQuote } from "./quotes.ts";
import type {
  LinkOrderRecord,
  PaymentLinkRecord,
  PaymentMethod,
  QuoteRecord,
  TransactionRecord,
} from "./state.ts";
import { quoteOfOrder, webhookTransaction } from "./views.ts";

/**
 * Hosted payment links that settle on-chain. A link is paid by NGN bank transfer and/or over Lightning (notes §2,
 * §9): each method it accepts always has one current order, backed by an NGN→BTC bank-transfer quote or by a
 * Lightning quote whose invoice is the link's worth in sats. When a method's quote expires unpaid its order becomes
 * EXPIRED and a new PENDING order of that method is opened (spec 3); GET /paymentlink/refresh with LIGHTNING
 * replaces an unpaid invoice at once (the old order is CANCELLED). A paid order settles after 3 confirmations.
 * Once a one-time link is paid, its other method's open order is CANCELLED.
 */

export function paymentLinkUrl(core: Core, link: PaymentLinkRecord): string {
  return `${core.origin}/checkout/${link.id}`;
}

export function createPaymentLink(core: Core, body: z.output<typeof paymentLinkRequest>): PaymentLinkRecord {
  if (!body.speed) throw badRequest("speed is required for ONCHAIN settlement (slow, medium or fast)");
  const address = parseOnChainAddress(body.beneficiary.onChainAddress);
  const now = core.clock.now();
  const link: PaymentLinkRecord = {
    id: ids.uuid(),
    name: body.name,
    description: body.description,
    type: body.type,
    amount: Number(body.amount),
    addFeeToTotalCost: body.addFeeToTotalCost,
    settlementCurrency: "BTC",
    settlementMethod: "ONCHAIN",
    speed: body.speed,
    paymentCurrency: "NGN",
    paymentMethods: [...body.paymentMethods],
    callbackUrl: body.callbackUrl ?? "",
    status: "ACTIVE",
    beneficiaryId: address,
    orders: [],
    createdAt: now,
    updatedAt: now,
  };
  // Opening the first orders prices the link; below 6000 sats it throws "Amount too small" and the link is not
  // stored (both methods settle the same sats, so both pass or both fail).
  for (const method of link.paymentMethods) openLinkOrder(core, link, method);
  core.state.paymentLinks.set(link.id, link);
  return link;
}

/** The NGN→BTC bank-transfer quote of a link: it fixes the sats that settle for either method. */
function linkQuoteParams(link: PaymentLinkRecord): QuoteParams {
  return {
    amount: BigInt(link.amount),
    sourceCurrency: "NGNKOBO",
    targetCurrency: "BTCSAT",
    paymentMethod: "BANKTRANSFER",
    paymentCurrency: "NGNKOBO",
    autopayout: true,
    customerInternalFee: 0,
    speed: link.speed,
    beneficiary: { kind: "onchain", onChainAddress: link.beneficiaryId },
    paymentLinkId: link.id,
    feeOnTop: link.addFeeToTotalCost,
  };
}

/**
 * A Lightning order's quote: the payer pays the link's worth in sats (what settles + the network fee + the
 * service fee, each as the bank-transfer quote prices it), so every figure of the LIGHTNING block reconciles.
 */
function lightningDraft(core: Core, params: QuoteParams): QuoteDraft {
  const priced = priceQuote(core, params);
  const sats = priced.amountInTarget + priced.networkFee + priced.feesInTarget;
  return {
    sourceCurrency: "BTCSAT",
    targetCurrency: "BTCSAT",
    paymentCurrency: "BTCSAT",
    paymentMethod: "LIGHTNING",
    exchangeRate: core.pricing.exchangeRate("BTC"),
    usdToTargetCurrencyRate: core.pricing.usdToTarget("BTC"),
    amountInSource: sats,
    feesInSource: priced.feesInTarget,
    amountInTarget: priced.amountInTarget,
    feesInTarget: priced.feesInTarget,
    customerInternalFee: 0,
    total: sats,
    estimatedRoutingFee: priced.networkFee,
    speed: params.speed,
    autopayout: true,
    beneficiary: params.beneficiary,
    paymentLinkId: params.paymentLinkId,
  };
}

function openLinkOrder(core: Core, link: PaymentLinkRecord, method: PaymentMethod): LinkOrderRecord {
  const params = linkQuoteParams(link);
  const onExpired = (expired: QuoteRecord) => onLinkQuoteExpired(core, link, expired, method);
  const quote =
    method === "LIGHTNING"
      ? storeQuote(core, lightningDraft(core, params), onExpired)
      : createQuote(core, params, onExpired);
  const order: LinkOrderRecord = {
    id: ids.uuid(),
    orderId: quote.orderId,
    paymentLinkId: link.id,
    paymentMethod: method,
    status: "PENDING",
    createdAt: quote.createdAt,
    updatedAt: quote.createdAt,
  };
  link.orders.push(order);
  link.updatedAt = quote.createdAt;
  return order;
}

/** A one-time link takes one payment; a recurring one stays open while ACTIVE. */
function linkOpen(core: Core, link: PaymentLinkRecord): boolean {
  if (link.status !== "ACTIVE") return false;
  if (link.type === "RECURRING") return true;
  return !link.orders.some((order) => quoteOfOrder(core, order.orderId)?.paidAt !== undefined);
}

function onLinkQuoteExpired(
  core: Core,
  link: PaymentLinkRecord,
  quote: QuoteRecord,
  method: PaymentMethod,
): void {
  const order = link.orders.find((candidate) => candidate.orderId === quote.orderId);
  if (order) {
    order.status = "EXPIRED";
    order.updatedAt = core.clock.now();
  }
  if (!linkOpen(core, link)) return;
  try {
    openLinkOrder(core, link, method);
  } catch (error) {
    // Prices moved below the 6000-sat minimum: the link has no open order until they recover.
    core.logger.warn({ err: error, paymentLinkId: link.id }, "could not renew payment-link order");
  }
}

/** Close an unpaid open order (its quote can no longer be paid). */
function cancelLinkOrder(core: Core, order: LinkOrderRecord): void {
  const now = core.clock.now();
  order.status = "CANCELLED";
  order.updatedAt = now;
  const underlying = core.state.orders.get(order.orderId);
  if (underlying?.status === "PENDING") {
    underlying.status = "EXPIRED";
    underlying.updatedAt = now;
  }
}

/**
 * A recurring link opens its next order of the paid method as soon as one is paid; a one-time link closes its
 * other open orders instead.
 */
export function onLinkOrderPaid(core: Core, quote: QuoteRecord): void {
  const link = quote.paymentLinkId ? core.state.paymentLinks.get(quote.paymentLinkId) : undefined;
  if (link?.status !== "ACTIVE") return;
  if (link.type === "RECURRING") {
    openLinkOrder(core, link, quote.paymentMethod);
    return;
  }
  for (const order of link.orders) {
    if (order.status === "PENDING" && order.orderId !== quote.orderId) cancelLinkOrder(core, order);
  }
}

export function settleLinkOrder(core: Core, quote: QuoteRecord, tx: TransactionRecord): void {
  const link = quote.paymentLinkId ? core.state.paymentLinks.get(quote.paymentLinkId) : undefined;
  if (!link) return;
  const order = link.orders.find((candidate) => candidate.orderId === quote.orderId);
  if (order) {
    order.status = "SETTLED";
    order.updatedAt = core.clock.now();
  }
  core.webhooks.emit("payment_link.settled", {
    paymentRef: link.id,
    paymentLink: paymentLinkUrl(core, link),
    callbackUrl: link.callbackUrl,
    settlementCurrency: link.settlementCurrency,
    paymentCurrency: link.paymentCurrency,
    paymentMethod: quote.paymentMethod,
    transaction: webhookTransaction(tx, quote.hash),
  });
}

export function findLinkOrder(core: Core, orderId: string): LinkOrderRecord | undefined {
  for (const link of core.state.paymentLinks.values()) {
    const order = link.orders.find((candidate) => candidate.orderId === orderId);
    if (order) return order;
  }
  return undefined;
}

/** The order of a method a payer should use now: its PENDING one, else its most recent. */
function currentLinkOrder(link: PaymentLinkRecord, method: PaymentMethod): LinkOrderRecord | undefined {
  const orders = link.orders.filter((order) => order.paymentMethod === method);
  return orders.findLast((order) => order.status === "PENDING") ?? orders.at(-1);
}

/** The method details show when the caller names none: bank transfer where the link accepts it. */
export function defaultLinkMethod(link: PaymentLinkRecord): PaymentMethod {
  return link.paymentMethods.includes("BANKTRANSFER") ? "BANKTRANSFER" : "LIGHTNING";
}

/**
 * GET /paymentlink/refresh with LIGHTNING: a fresh invoice. The open order's unpaid invoice is replaced (its order
 * CANCELLED); a paid or closed link keeps what it has. Bank transfer: the current order as it is.
 */
export function refreshLinkOrder(core: Core, link: PaymentLinkRecord, method: PaymentMethod): void {
  if (method !== "LIGHTNING" || !linkOpen(core, link)) return;
  const current = currentLinkOrder(link, method);
  if (current?.status === "PENDING") {
    if (quoteOfOrder(core, current.orderId)?.paidAt !== undefined) return;
    cancelLinkOrder(core, current);
  }
  openLinkOrder(core, link, method);
}

/** GET /paymentlink/details data: the block of the asked method (the other one null). */
export function paymentLinkDetails(core: Core, link: PaymentLinkRecord, method = defaultLinkMethod(link)) {
  const order = currentLinkOrder(link, method);
  const quote = order ? quoteOfOrder(core, order.orderId) : undefined;
  const bank = quote?.virtualAccount;
  return {
    paymentLinkDetails: {
      id: link.id,
      name: link.name,
      description: link.description,
      callbackUrl: link.callbackUrl,
      settlementCurrency: link.settlementCurrency,
      paymentLinkOrderId: order?.orderId ?? null,
      paymentMethods: [...link.paymentMethods],
      account: { name: PROFILE.businessName, logo: null },
      BANKTRANSFER:
        method === "BANKTRANSFER" && quote && bank
          ? {
              ngnAccountName: bank.accountName,
              ngnBankName: bank.bankName,
              ngnBankAccountNumber: bank.accountNumber,
              amount: quote.total,
              expiresAt: iso(quote.expiresAt),
              targetAmount: quote.amountInTarget,
            }
          : null,
      LIGHTNING:
        method === "LIGHTNING" && quote
          ? {
              invoice: quote.invoice,
              amount: quote.total,
              targetAmount: quote.amountInTarget,
              expiresAt: iso(quote.expiresAt),
            }
          : null,
    },
  };
}
