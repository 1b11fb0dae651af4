import { z } from "zod";
import { minorAmount, opt, rate, stringish } from "./common.ts";

/**
 * Transaction (spec 2.3) and its metadata variants. The metadata key names the context: `metadata` (API reads,
 * NGN payouts, the KES webhook spec shape), `transactionMetadata` (NGN webhooks), `btcUsdMetadata` (bitcoin side),
 * and `kesTransactionMetadata` / `zarTransactionMetadata` / `ghsTransactionMetadata` /
 * `stablecoinTransactionMetadata` (real service webhooks, notes 11). Every metadata field is optional.
 */

const common = {
  id: opt(z.string()),
  orderId: opt(z.string()),
  customerReference: opt(z.string()),
  customerInternalFee: opt(minorAmount),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
};

/** `metadata` as the API and the spec's webhook shapes use it (NGN payout fields, KES hash/reference). */
const transactionMetadataSchema = z.looseObject({
  ...common,
  bankCode: opt(z.string()),
  bankName: opt(z.string()),
  bankAccountName: opt(z.string()),
  bankAccountNumber: opt(stringish),
  // KES spec webhook: payment.received {hash, reference}; payment.sent {identifierType, phoneNumber, reference}.
  hash: opt(z.string()),
  reference: opt(z.string()),
  identifierType: opt(z.string()),
  phoneNumber: opt(z.string()),
});

/** `transactionMetadata` of NGN webhook events. */
const ngnTransactionMetadataSchema = z.looseObject({
  ...common,
  bankCode: opt(z.string()),
  bankName: opt(z.string()),
  bankAccountName: opt(z.string()),
  bankAccountNumber: opt(stringish),
});

/** `btcUsdMetadata`: the bitcoin side. The reference is `externalRef` (spec) or `customerReference` (2026+). */
const btcUsdMetadataSchema = z.looseObject({
  ...common,
  paymentMethod: opt(z.string()),
  externalRef: opt(z.string()),
  estimatedRoutingFee: opt(minorAmount),
  onChainAddress: opt(z.string()),
  lnInvoice: opt(z.string()),
  lnAddress: opt(z.string()),
  onchainTxid: opt(z.string()),
  onchainNetworkSpeed: opt(z.string()),
});

const mobileIdentifiers = z.looseObject({
  phoneNumber: opt(z.string()),
  accountName: opt(z.string()),
  network: opt(z.string()),
  paybillNumber: opt(z.string()),
  accountNumber: opt(z.string()),
  tillNumber: opt(z.string()),
});

/** `kesTransactionMetadata` (real KES webhooks): the beneficiary as sent. */
const kesTransactionMetadataSchema = z.looseObject({
  ...common,
  identifierType: opt(z.string()),
  identifiers: opt(mobileIdentifiers),
  accountName: opt(z.string()),
  reference: opt(z.string()),
});

/** `zarTransactionMetadata`: the ZAR bank beneficiary. */
const zarTransactionMetadataSchema = z.looseObject({
  ...common,
  name: opt(z.string()),
  bankName: opt(z.string()),
  bankAccountNumber: opt(stringish),
  reference: opt(z.string()),
});

/** `ghsTransactionMetadata`: the MTN mobile-money beneficiary. */
const ghsTransactionMetadataSchema = z.looseObject({
  ...common,
  identifierType: opt(z.string()),
  identifiers: opt(mobileIdentifiers),
  reference: opt(z.string()),
});

const stablecoinTransactionMetadataSchema = z.looseObject({ ...common });

const transactionFields = {
  id: z.string(),
  walletId: opt(z.string()),
  ref: opt(z.string()),
  hash: opt(z.string()),
  amount: minorAmount,
  fees: opt(minorAmount),
  /** NGN, KES, ZAR, GHS, BTC, USDT… (open). */
  currency: z.string(),
  /** WITHDRAWAL or DEPOSIT (open). */
  type: opt(z.string()),
  /** PENDING, SUCCESS, FAILED… (open). */
  status: z.string(),
  autopayout: opt(z.boolean()),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
  transactionMetadata: opt(ngnTransactionMetadataSchema),
  btcUsdMetadata: opt(btcUsdMetadataSchema),
  kesTransactionMetadata: opt(kesTransactionMetadataSchema),
  zarTransactionMetadata: opt(zarTransactionMetadataSchema),
  ghsTransactionMetadata: opt(ghsTransactionMetadataSchema),
  stablecoinTransactionMetadata: opt(stablecoinTransactionMetadataSchema),
};

/**
 * A transaction as the API returns it in orders, withdrawals and webhooks. Only id, amount, currency and status
 * are required, so the KES webhook spec shape `{id, amount, currency, status, metadata}` parses too.
 */
export const transactionSchema = z.looseObject({
  ...transactionFields,
  metadata: opt(transactionMetadataSchema),
});
export type Transaction = z.output<typeof transactionSchema>;

/** `metadata.order.quote` of GET /transaction. */
const transactionDetailQuoteSchema = z.looseObject({
  id: opt(z.string()),
  exchangeRate: opt(rate),
  usdToTargetCurrencyRate: opt(rate),
  paymentBtcDetail: opt(z.string()),
  paymentMethod: opt(z.string()),
  /** What was paid, in source minor units (sats for Lightning). */
  totalAmount: opt(minorAmount),
  /** What the recipient gets, in target minor units. */
  equivalentAmount: opt(minorAmount),
  expiry: opt(z.string()),
  sourceCurrency: opt(z.string()),
  targetCurrency: opt(z.string()),
  paymentCurrency: opt(z.string()),
  customerInternalFee: opt(minorAmount),
});

const transactionDetailOrderSchema = z.looseObject({
  id: opt(z.string()),
  settledQuoteId: opt(z.string()),
  // Unit not documented: kept as sent.
  amount: opt(z.union([z.number(), z.string()])),
  currency: opt(z.string()),
  paymentMethod: opt(z.string()),
  status: opt(z.string()),
  quote: opt(transactionDetailQuoteSchema),
});

const transactionDetailMetadataSchema = transactionMetadataSchema.extend({
  merchantId: opt(z.string()),
  merchantName: opt(z.string()),
  order: opt(transactionDetailOrderSchema),
});

/** GET /transaction item: a transaction whose `metadata` also names the merchant and the order with its quote. */
const transactionDetailSchema = z.looseObject({
  ...transactionFields,
  metadata: opt(transactionDetailMetadataSchema),
});
export type TransactionDetail = z.output<typeof transactionDetailSchema>;

/** GET /transaction answers one object (spec) or an array (seen by two integrations): always a list. */
export const transactionDetailListSchema = z
  .union([z.array(transactionDetailSchema), transactionDetailSchema])
  .nullish()
  .transform((value): TransactionDetail[] => (value == null ? [] : Array.isArray(value) ? value : [value]));
