import { type Core, iso } from "#src/standins/sandbox/core.js";
import { currencyOf, formatMajor } from "#src/standins/sandbox/units.js";
import { PROFILE } from "./account.ts";
import type { OrderRecord, PaymentLinkRecord, QuoteRecord, TransactionRecord } from "./state.ts";

/**
 * Response shapes (spec 2.1–2.7) and the transaction inside a webhook event. Records never leave the sandbox
 * un-serialised.
 */

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

/* Transactions (spec 2.3). */

function transactionCore(tx: TransactionRecord) {
  return {
    id: tx.id,
    walletId: tx.walletId,
    ref: tx.ref,
    hash: tx.hash,
    amount: tx.amount,
    fees: tx.fees,
    currency: tx.currency,
    type: tx.type,
    status: tx.status,
    autopayout: tx.autopayout,
    createdAt: iso(tx.createdAt),
    updatedAt: iso(tx.updatedAt),
  };
}

/** A paid payout's reference on the recipient's side, under the name its rail gives it. */
function providerReference(tx: TransactionRecord): Record<string, string> {
  if (tx.providerReference === undefined) return {};
  return tx.currency === "KES"
    ? { mpesaReceiptNumber: tx.providerReference }
    : { nipSessionId: tx.providerReference };
}

/** What every currency's metadata carries: the transaction's times and, where given, the customer's reference. */
interface SharedMetadata {
  stamps: { createdAt: string; updatedAt: string };
  reference: { customerReference?: string };
}

/** Context metadata (webhook variant unless `rest`); NGN REST metadata is exactly spec 2.3. */
function contextMetadata(tx: TransactionRecord, rest: boolean): Record<string, unknown> {
  const shared: SharedMetadata = {
    stamps: { createdAt: iso(tx.createdAt), updatedAt: iso(tx.updatedAt) },
    reference: tx.customerReference !== undefined ? { customerReference: tx.customerReference } : {},
  };
  switch (tx.currency) {
    case "NGN":
      return ngnMetadata(tx, rest, shared);
    case "BTC":
      return btcMetadata(tx, shared);
    case "ZAR":
      return zarMetadata(tx, shared);
    case "GHS":
      return ghsMetadata(tx, shared);
    case "KES":
      return kesMetadata(tx, shared);
  }
}

function ngnMetadata(tx: TransactionRecord, rest: boolean, { stamps, reference }: SharedMetadata) {
  const bank = tx.beneficiary?.kind === "ngn-bank" ? tx.beneficiary : undefined;
  return {
    id: tx.metadataId,
    orderId: tx.orderId,
    bankCode: bank?.bankCode ?? null,
    ...(rest ? {} : { bankName: bank?.bankName ?? null }),
    bankAccountName: bank?.bankAccountName ?? null,
    bankAccountNumber: bank?.bankAccountNumber ?? null,
    customerInternalFee: tx.customerInternalFee,
    ...(rest ? {} : reference),
    ...(rest ? {} : providerReference(tx)),
    ...stamps,
  };
}

function btcMetadata(tx: TransactionRecord, { stamps, reference }: SharedMetadata) {
  const b = tx.beneficiary;
  return {
    id: tx.metadataId,
    orderId: tx.orderId,
    paymentMethod: tx.paymentMethod ?? "LIGHTNING",
    externalRef: tx.customerReference ?? null,
    ...reference,
    customerInternalFee: tx.customerInternalFee,
    estimatedRoutingFee: tx.estimatedRoutingFee,
    onChainAddress: b?.kind === "onchain" ? b.onChainAddress : null,
    lnInvoice: b?.kind === "lninvoice" ? b.lnInvoice : null,
    lnAddress: b?.kind === "lnaddress" ? b.lnAddress : null,
    ...(tx.type === "WITHDRAWAL" && tx.onchain
      ? { onchainTxid: tx.onchain.txid, onchainNetworkSpeed: tx.onchain.speed }
      : {}),
    ...stamps,
  };
}

function zarMetadata(tx: TransactionRecord, { stamps, reference }: SharedMetadata) {
  const bank = tx.beneficiary?.kind === "zar-bank" ? tx.beneficiary : undefined;
  return {
    id: tx.metadataId,
    orderId: tx.orderId,
    name: bank?.name ?? null,
    bankName: bank?.bankName ?? null,
    bankAccountNumber: bank?.bankAccountNumber ?? null,
    customerInternalFee: tx.customerInternalFee,
    ...reference,
    ...stamps,
  };
}

function ghsMetadata(tx: TransactionRecord, { stamps, reference }: SharedMetadata) {
  const mtn = tx.beneficiary?.kind === "ghs-mtn" ? tx.beneficiary : undefined;
  return {
    id: tx.metadataId,
    orderId: tx.orderId,
    identifierType: mtn?.identifierType ?? null,
    phoneNumber: mtn?.phoneNumber ?? null,
    accountName: mtn?.accountName ?? null,
    customerInternalFee: tx.customerInternalFee,
    ...reference,
    ...stamps,
  };
}

function kesMetadata(tx: TransactionRecord, { stamps, reference }: SharedMetadata) {
  const kes = tx.beneficiary?.kind === "kes" ? tx.beneficiary : undefined;
  return {
    id: tx.metadataId,
    orderId: tx.orderId,
    identifierType: kes?.identifierType ?? null,
    identifiers: kes
      ? Object.fromEntries(
          Object.entries({
            phoneNumber: kes.phoneNumber,
            paybillNumber: kes.paybillNumber,
            accountNumber: kes.accountNumber,
            tillNumber: kes.tillNumber,
            accountName: kes.accountName,
            network: kes.network,
          }).filter(([, value]) => value !== undefined),
        )
      : null,
    customerInternalFee: tx.customerInternalFee,
    ...reference,
    ...stamps,
  };
}

/** A Transaction as REST responses show it (orders, profile, POST /withdraw). */
export function transactionView(tx: TransactionRecord) {
  return { ...transactionCore(tx), metadata: contextMetadata(tx, true) };
}

const METADATA_KEY = {
  NGN: "transactionMetadata",
  BTC: "btcUsdMetadata",
  ZAR: "zarTransactionMetadata",
  GHS: "ghsTransactionMetadata",
} as const;

/** `data` of payment.received / payment.sent (spec 6, notes §11). */
export function webhookTransaction(tx: TransactionRecord, quoteHash: string) {
  if (tx.currency === "KES") {
    // Spec 6 KES shape. `reference` carries the quote hash so both events can be correlated.
    const kes = tx.beneficiary?.kind === "kes" ? tx.beneficiary : undefined;
    const metadata =
      tx.type === "DEPOSIT"
        ? { hash: quoteHash, reference: quoteHash }
        : {
            identifierType: kes?.identifierType ?? null,
            phoneNumber: kes?.phoneNumber ?? kes?.tillNumber ?? kes?.paybillNumber ?? null,
            reference: quoteHash,
            ...providerReference(tx),
          };
    return { id: tx.id, amount: tx.amount, currency: tx.currency, status: tx.status, metadata };
  }
  return { ...transactionCore(tx), [METADATA_KEY[tx.currency]]: contextMetadata(tx, false) };
}

/** GET /transaction data (spec 2.3 "Transaction detail"). */
export function transactionDetail(core: Core, tx: TransactionRecord) {
  const { account } = core.state;
  const quote = tx.quoteId ? core.state.quotes.get(tx.quoteId) : undefined;
  const order = quote ? core.state.orders.get(quote.orderId) : undefined;
  const b = tx.beneficiary;
  let bankName: string | null = null;
  let bankAccountNumber: string | null = null;
  if (b?.kind === "ngn-bank" || b?.kind === "zar-bank") {
    bankName = b.bankName;
    bankAccountNumber = b.bankAccountNumber;
  } else if (b?.kind === "kes") {
    bankAccountNumber = b.phoneNumber ?? b.accountNumber ?? null;
  } else if (b?.kind === "ghs-mtn") {
    bankName = "MTN";
    bankAccountNumber = b.phoneNumber;
  }
  return {
    ...transactionCore(tx),
    metadata: {
      id: tx.metadataId,
      merchantId: account.accountId,
      merchantName: PROFILE.businessName,
      bankName,
      bankAccountNumber,
      reference: tx.ref,
      ...providerReference(tx),
      customerInternalFee: tx.customerInternalFee,
      ...(tx.onchain
        ? {
            onchainTxid: tx.onchain.txid,
            onchainNetworkSpeed: tx.onchain.speed,
            confirmations: tx.onchain.confirmations,
            requiredConfirmations: 3,
          }
        : {}),
      ...(tx.failureReason ? { failureReason: tx.failureReason } : {}),
      order:
        quote && order
          ? {
              id: order.orderId,
              settledQuoteId: quote.paidAt !== undefined ? quote.id : null,
              amount: quote.amountInTarget,
              currency: currencyOf(quote.targetCurrency),
              paymentMethod: quote.paymentMethod,
              status: order.status,
              quote: {
                id: quote.id,
                exchangeRate: quote.exchangeRate,
                usdToTargetCurrencyRate: quote.usdToTargetCurrencyRate,
                paymentBtcDetail: quote.invoice,
                paymentMethod: quote.paymentMethod,
                totalAmount: quote.total,
                equivalentAmount: quote.amountInTarget,
                expiry: iso(quote.expiresAt),
                sourceCurrency: quote.sourceCurrency,
                targetCurrency: quote.targetCurrency,
                paymentCurrency: quote.paymentCurrency,
                customerInternalFee: quote.customerInternalFee,
              },
            }
          : null,
    },
  };
}
