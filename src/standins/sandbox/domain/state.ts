import type { Currency, Speed, Unit } from "#src/standins/sandbox/units.js";

/** The sandbox's in-memory data model. Timestamps are sandbox-clock milliseconds. */

export type WalletCurrency = Currency | "USD";
/** Listed by GET /wallet (spec 4); ZAR and GHS wallets exist internally as settlement ledgers. */
export const LISTED_WALLETS = ["NGN", "KES", "BTC", "USD"] as const;
export const ALL_WALLETS: readonly WalletCurrency[] = ["NGN", "KES", "BTC", "USD", "ZAR", "GHS"];

export type Beneficiary =
  | {
      kind: "ngn-bank";
      bankAccountNumber: string;
      bankAccountName: string;
      bankCode: string;
      bankName: string;
    }
  | {
      kind: "kes";
      identifierType: "paytophone" | "paytobill" | "paytotill";
      phoneNumber?: string;
      paybillNumber?: string;
      accountNumber?: string;
      tillNumber?: string;
      accountName?: string;
      network?: string;
    }
  | { kind: "zar-bank"; name: string; bankName: string; bankAccountNumber: string }
  | { kind: "ghs-mtn"; identifierType: "MTN"; phoneNumber: string; accountName: string }
  | { kind: "onchain"; onChainAddress: string }
  | { kind: "lninvoice"; lnInvoice: string }
  | { kind: "lnaddress"; lnAddress: string };

export type PaymentMethod = "LIGHTNING" | "BANKTRANSFER";

export interface VirtualAccount {
  bankName: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
}

export interface QuoteRecord {
  id: string;
  orderId: string;
  sourceCurrency: Unit;
  targetCurrency: Unit;
  paymentCurrency: Unit;
  paymentMethod: PaymentMethod;
  exchangeRate: number;
  usdToTargetCurrencyRate: number;
  amountInSource: number;
  feesInSource: number;
  amountInTarget: number;
  feesInTarget: number;
  customerInternalFee: number;
  /** amountInSource + customerInternalFee: what the payer must pay exactly. */
  total: number;
  estimatedRoutingFee: number;
  speed?: Speed;
  invoice: string;
  hash: string;
  preimage?: string;
  virtualAccount?: VirtualAccount;
  customerReference?: string;
  autopayout: boolean;
  beneficiary?: Beneficiary;
  paymentLinkId?: string;
  /** Field names of the POST /quote body as the client sent it (shown by /_sandbox/state; e.g. was autopayout sent). */
  requestFields?: string[];
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  paidAt?: number;
}

type OrderStatus = "PENDING" | "PAID" | "EXPIRED" | "FAILED";

export interface OrderRecord {
  orderId: string;
  quoteId: string;
  status: OrderStatus;
  paymentLinkId?: string;
  createdAt: number;
  updatedAt: number;
}

type TransactionStatus = "PENDING" | "SUCCESS" | "FAILED";
type TransactionType = "DEPOSIT" | "WITHDRAWAL";

interface OnchainInfo {
  txid: string;
  speed: Speed;
  confirmations: number;
  broadcastAt: number;
  confirmedAt?: number;
}

export interface TransactionRecord {
  id: string;
  /** Id of the context metadata object (transactionMetadata.id, btcUsdMetadata.id, …). */
  metadataId: string;
  walletId: string;
  ref: string;
  hash: string;
  amount: number;
  fees: number;
  currency: Currency;
  type: TransactionType;
  status: TransactionStatus;
  autopayout: boolean;
  /** Order reference; withdrawals get their own reference that is not an order. */
  orderId: string;
  quoteId?: string;
  /** quote pay-in/payout, or a direct POST /withdraw or /withdraw/btc. */
  origin: "quote" | "withdraw" | "withdraw-btc";
  beneficiary?: Beneficiary;
  paymentMethod?: PaymentMethod;
  customerReference?: string;
  customerInternalFee: number;
  estimatedRoutingFee: number;
  memo?: string;
  onchain?: OnchainInfo;
  failureReason?: string;
  /**
   * What the recipient's side shows for a paid payout: the NIP session id of a naira transfer, the M-Pesa receipt
   * of a shilling one (api views: `nipSessionId`, `mpesaReceiptNumber`).
   */
  providerReference?: string;
  createdAt: number;
  updatedAt: number;
}

type LinkOrderStatus = "PENDING" | "SETTLED" | "EXPIRED" | "FAILED" | "CANCELLED";

export interface LinkOrderRecord {
  id: string;
  orderId: string;
  paymentLinkId: string;
  paymentMethod: PaymentMethod;
  status: LinkOrderStatus;
  createdAt: number;
  updatedAt: number;
}

export interface PaymentLinkRecord {
  id: string;
  name: string;
  description: string;
  type: "ONE_TIME" | "RECURRING";
  amount: number;
  addFeeToTotalCost: boolean;
  settlementCurrency: "BTC";
  settlementMethod: "ONCHAIN";
  speed: Speed;
  paymentCurrency: "NGN";
  /** BANKTRANSFER and/or LIGHTNING, in the order the merchant gave them. */
  paymentMethods: PaymentMethod[];
  callbackUrl: string;
  status: "ACTIVE" | "INACTIVE" | "EXPIRED";
  beneficiaryId: string;
  orders: LinkOrderRecord[];
  createdAt: number;
  updatedAt: number;
}

export interface WalletRecord {
  id: string;
  currency: WalletCurrency;
  balance: bigint;
}

interface WebhookConfig {
  id: string;
  url: string;
  secret: string;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface AccountRecord {
  userId: string;
  accountId: string;
  apiKey: string;
  webhook: WebhookConfig;
  settings: {
    id: string;
    autopayout: boolean;
    language: string;
    notification: { email: boolean; sms: boolean };
  };
  wallets: Record<WalletCurrency, WalletRecord>;
  bankAccount: VirtualAccount;
  createdAt: number;
}

export interface SandboxState {
  account: AccountRecord;
  quotes: Map<string, QuoteRecord>;
  orders: Map<string, OrderRecord>;
  /** Insertion order = creation order ("latest match" lookups walk it backwards). */
  transactions: TransactionRecord[];
  paymentLinks: Map<string, PaymentLinkRecord>;
  /** Sandbox-clock instants of recent name enquiries (rate limit window). */
  nameEnquiries: number[];
}
