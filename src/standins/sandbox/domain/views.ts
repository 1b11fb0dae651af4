import { type Core, iso } from "#src/standins/sandbox/core.js";
import { currencyOf, formatMajor } from "#src/standins/sandbox/units.js";
import type { OrderRecord, PaymentLinkRecord, QuoteRecord } from "./state.ts";
import { transactionView } from "./transaction-views.ts";

/** Response shapes (spec 2.1–2.7). Records never leave the sandbox un-serialised. */

function quoteIsValid(core: Core, quote: QuoteRecord): boolean {
  const order = core.state.orders.get(quote.orderId);
  return quote.paidAt === undefined && order?.status === "PENDING" && core.clock.now() < quote.expiresAt;
}

/** POST /quote data, and the quotes nested in orders. Stamps as the real service sends them (notes §11). */
export function quoteView(core: Core, quote: QuoteRecord) {
  const bank = quote.virtualAccount;
  return {
    id: quote.id,
    exchangeRate: quote.exchangeRate,
    usdToTargetCurrencyRate: quote.usdToTargetCurrencyRate,
    sourceCurrency: quote.sourceCurrency,
    targetCurrency: quote.targetCurrency,
    transactionFeesInSourceCurrency: quote.feesInSource,
    transactionFeesInTargetCurrency: quote.feesInTarget,
    amountInSourceCurrency: quote.amountInSource,
    amountInTargetCurrency: quote.amountInTarget,
    paymentMethod: quote.paymentMethod,
    expiry: iso(quote.expiresAt),
    isValid: quoteIsValid(core, quote),
    invoice: quote.invoice,
    hash: quote.hash,
    totalAmountInSourceCurrency: quote.total,
    customerInternalFee: quote.customerInternalFee,
    ...(quote.customerReference !== undefined ? { customerReference: quote.customerReference } : {}),
    ...(bank
      ? {
          bankName: bank.bankName,
          ngnBankAccountNumber: bank.accountNumber,
          ngnAccountName: bank.accountName,
          ngnBankCode: bank.bankCode,
          estimatedRoutingFee: quote.estimatedRoutingFee,
        }
      : {}),
    orderId: quote.orderId,
    createdAt: iso(quote.createdAt),
    updatedAt: iso(quote.updatedAt),
  };
}

function orderParts(core: Core, order: OrderRecord) {
  const quote = core.state.quotes.get(order.quoteId);
  if (!quote) throw new Error(`order ${order.orderId} has no quote`);
  const currency = currencyOf(quote.targetCurrency);
  const transactions = core.state.transactions.filter((tx) => tx.quoteId === quote.id).map(transactionView);
  return { quote, currency, transactions, amount: formatMajor(quote.amountInTarget, currency) };
}

/** An item of GET /order/all. */
export function orderListView(core: Core, order: OrderRecord) {
  const { quote, currency, transactions, amount } = orderParts(core, order);
  return {
    orderId: order.orderId,
    quoteId: order.quoteId,
    status: order.status,
    currency,
    paymentMethod: quote.paymentMethod,
    isValid: quoteIsValid(core, quote),
    amount,
    createdAt: iso(order.createdAt),
    updatedAt: iso(order.updatedAt),
    quotes: [quoteView(core, quote)],
    transactions,
  };
}

/** GET /order?id= */
export function orderView(core: Core, order: OrderRecord) {
  const { quote, currency, transactions, amount } = orderParts(core, order);
  return {
    orderId: order.orderId,
    quoteId: order.quoteId,
    status: order.status,
    currency,
    paymentCollectionMethod: quote.paymentMethod,
    isValid: quoteIsValid(core, quote),
    displayAmount: `${amount} ${currency}`,
    paymentBtcDetail: quote.invoice,
    createdAt: iso(order.createdAt),
    quotes: [quoteView(core, quote)],
    transactions,
  };
}

export function paymentLinkView(core: Core, link: PaymentLinkRecord) {
  const current = link.orders.at(-1);
  const quote = current ? quoteOfOrder(core, current.orderId) : undefined;
  return {
    id: link.id,
    name: link.name,
    description: link.description,
    type: link.type,
    amount: String(link.amount),
    fee: quote ? quote.feesInSource : null,
    addFeeToTotalCost: link.addFeeToTotalCost,
    settlementCurrency: link.settlementCurrency,
    settlementMethod: link.settlementMethod,
    speed: link.speed,
    paymentCurrency: link.paymentCurrency,
    paymentMethods: [...link.paymentMethods],
    callbackUrl: link.callbackUrl,
    channel: "API",
    status: link.status,
    accountId: core.state.account.accountId,
    expiresAt: null,
    invoice: null,
    companyLogo: null,
    beneficiaryId: link.beneficiaryId,
    createdAt: iso(link.createdAt),
    updatedAt: iso(link.updatedAt),
    orders: link.orders.map((order) => ({
      id: order.id,
      status: order.status,
      orderId: order.orderId,
      paymentLinkId: order.paymentLinkId,
      paymentMethod: order.paymentMethod,
      createdAt: iso(order.createdAt),
      updatedAt: iso(order.updatedAt),
    })),
  };
}

export function quoteOfOrder(core: Core, orderId: string): QuoteRecord | undefined {
  const order = core.state.orders.get(orderId);
  return order ? core.state.quotes.get(order.quoteId) : undefined;
}
