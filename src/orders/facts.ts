/**
 * Facts about one payout-API transaction, read defensively from any of its shapes: a webhook `data`, a
 * `GET /transaction` item, an NGN/BTC/KES/ZAR/GHS metadata variant (spec 2.3 and 6, behaviour notes 7 and 11).
 * The API client validates envelopes; this only reads the fields the order domain needs.
 */
export interface TransactionFacts {
  id?: string;
  /** DEPOSIT or WITHDRAWAL, upper-cased; absent in the KES spec shape (inferred from the event name instead). */
  type?: string;
  /** PENDING, SUCCESS, FAILED, … upper-cased. */
  status?: string;
  hash?: string;
  orderId?: string;
  currency?: string;
  /** In the smallest unit of `currency` (kobo, cents, pesewas, sats). */
  amount?: number;
  /** The transaction's own reference (29 hex characters). */
  ref?: string;
  /** A reference the recipient's bank or M-Pesa shows (NIP session id, M-Pesa receipt, `reference`). */
  externalReference?: string;
  txid?: string;
  confirmations?: number;
  /** On-chain withdrawal (btcUsdMetadata with an address or a txid). */
  onchain: boolean;
  settledQuoteId?: string;
}

const METADATA_KEYS = [
  "transactionMetadata",
  "btcUsdMetadata",
  "kesTransactionMetadata",
  "zarTransactionMetadata",
  "ghsTransactionMetadata",
  "stablecoinTransactionMetadata",
  "metadata",
] as const;

/** Payout references, most specific first: what the recipient's statement shows beats our own ids. */
const EXTERNAL_REFERENCE_KEYS = [
  "nipSessionId",
  "sessionId",
  "mpesaReceiptNumber",
  "mpesaReference",
  "receiptNumber",
  "receipt",
  "payoutReference",
  "providerReference",
  "reference",
] as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

const count = (value: unknown): number | undefined => {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
};

export function transactionFacts(data: unknown): TransactionFacts {
  if (!isObject(data)) return { onchain: false };
  const metadatas = METADATA_KEYS.map((key) => data[key]).filter(isObject);
  const nestedOrder = metadatas.map((meta) => meta.order).find(isObject);
  const pick = (read: (source: Json) => string | undefined): string | undefined => {
    for (const source of [data, ...metadatas]) {
      const value = read(source);
      if (value) return value;
    }
    return undefined;
  };
  const pickCount = (key: string): number | undefined => {
    for (const source of [data, ...metadatas, ...(isObject(data.onchain) ? [data.onchain] : [])]) {
      const value = count(source[key]);
      if (value !== undefined) return value;
    }
    return undefined;
  };

  const txid = pick((source) => text(source.onchainTxid) ?? text(source.txid));
  const btcMeta = isObject(data.btcUsdMetadata) ? data.btcUsdMetadata : undefined;
  const onchain =
    !!txid ||
    text(btcMeta?.paymentMethod)?.toUpperCase() === "ONCHAIN" ||
    (!!text(btcMeta?.onChainAddress) && !text(btcMeta?.lnInvoice) && !text(btcMeta?.lnAddress));

  return {
    id: text(data.id),
    type: text(data.type)?.toUpperCase(),
    status: text(data.status)?.toUpperCase(),
    hash: pick((source) => text(source.hash)),
    orderId: pick((source) => text(source.orderId)),
    currency: text(data.currency)?.toUpperCase(),
    amount: count(data.amount),
    ref: text(data.ref),
    externalReference: pick((source) => {
      for (const key of EXTERNAL_REFERENCE_KEYS) {
        const value = text(source[key]);
        if (value) return value;
      }
      return undefined;
    }),
    txid,
    confirmations: pickCount("confirmations"),
    onchain,
    settledQuoteId: text(nestedOrder?.settledQuoteId),
  };
}

/**
 * What the recipient can quote to their bank / M-Pesa: an external reference when present, else our `ref`, else
 * the transaction id. A "reference" that is only the quote's payment hash (the KES spec shape) is not one.
 */
export function payoutReferenceOf(facts: TransactionFacts, quoteHash?: string): string | undefined {
  const external =
    facts.externalReference && facts.externalReference !== quoteHash && facts.externalReference !== facts.hash
      ? facts.externalReference
      : undefined;
  return external ?? facts.ref ?? facts.id;
}
