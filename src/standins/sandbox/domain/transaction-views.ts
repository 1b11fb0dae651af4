import { type Core, iso } from "#src/standins/sandbox/core.js";
import { currencyOf } from "#src/standins/sandbox/units.js";
import { PROFILE } from "./account.ts";
import type { TransactionRecord } from "./state.ts";

/** Transaction response shapes (spec 2.3) and the transaction inside a webhook event. */

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
