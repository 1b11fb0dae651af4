import type { z } from "zod";
import { type Core, iso } from "../core.ts";
import { badRequest } from "../http/errors.ts";
import * as ids from "../ids.ts";
import { parseOnChainAddress } from "../schemas/beneficiary.ts";
import type { paymentLinkRequest } from "../schemas/requests.ts";
import { PROFILE } from "./account.ts";
import { createQuote } from "./quotes.ts";
import type { LinkOrderRecord, PaymentLinkRecord, QuoteRecord, TransactionRecord } from "./state.ts";
import { quoteOfOrder, webhookTransaction } from "./views.ts";

/**
 * Hosted payment links that settle on-chain. Each link always has one current order backed by an
 * NGN→BTC bank-transfer quote; when that quote expires unpaid the order becomes EXPIRED and a new
 * PENDING order is opened (spec 3). A paid order settles after 3 confirmations.
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
    paymentMethods: ["BANKTRANSFER"],
    callbackUrl: body.callbackUrl ?? "",
    status: "ACTIVE",
    beneficiaryId: address,
    orders: [],
    createdAt: now,
    updatedAt: now,
  };
  // Opening the first order prices the link; below 6000 sats it throws "Amount too small" and
  // the link is not stored.
  openLinkOrder(core, link);
  core.state.paymentLinks.set(link.id, link);
  return link;
}

function openLinkOrder(core: Core, link: PaymentLinkRecord): LinkOrderRecord {
  const quote = createQuote(
    core,
    {
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
    },
    (expired) => onLinkQuoteExpired(core, link, expired),
  );
  const order: LinkOrderRecord = {
    id: ids.uuid(),
    orderId: quote.orderId,
    paymentLinkId: link.id,
    paymentMethod: "BANKTRANSFER",
    status: "PENDING",
    createdAt: quote.createdAt,
    updatedAt: quote.createdAt,
  };
  link.orders.push(order);
  link.updatedAt = quote.createdAt;
  return order;
}

function onLinkQuoteExpired(core: Core, link: PaymentLinkRecord, quote: QuoteRecord): void {
  const order = link.orders.find((candidate) => candidate.orderId === quote.orderId);
  if (order) {
    order.status = "EXPIRED";
    order.updatedAt = core.clock.now();
  }
  if (link.status !== "ACTIVE") return;
  try {
    openLinkOrder(core, link);
  } catch (error) {
    // Prices moved below the 6000-sat minimum: the link has no open order until they recover.
    core.logger.warn({ err: error, paymentLinkId: link.id }, "could not renew payment-link order");
  }
}

/** A recurring link opens its next order as soon as one is paid; a one-time link does not. */
export function onLinkOrderPaid(core: Core, quote: QuoteRecord): void {
  const link = quote.paymentLinkId ? core.state.paymentLinks.get(quote.paymentLinkId) : undefined;
  if (link?.type === "RECURRING" && link.status === "ACTIVE") openLinkOrder(core, link);
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
    paymentMethod: "BANKTRANSFER",
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

/** The order a payer should use now: the PENDING one, else the most recent. */
export function currentLinkOrder(link: PaymentLinkRecord): LinkOrderRecord | undefined {
  return link.orders.findLast((order) => order.status === "PENDING") ?? link.orders.at(-1);
}

/** GET /paymentlink/details data. */
export function paymentLinkDetails(core: Core, link: PaymentLinkRecord) {
  const order = currentLinkOrder(link);
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
        quote && bank
          ? {
              ngnAccountName: bank.accountName,
              ngnBankName: bank.bankName,
              ngnBankAccountNumber: bank.accountNumber,
              amount: quote.total,
              expiresAt: iso(quote.expiresAt),
              targetAmount: quote.amountInTarget,
            }
          : null,
    },
  };
}
