import { uuid } from "#src/standins/sandbox/ids.js";
import { type AccountRecord, ALL_WALLETS, type SandboxState, type WalletCurrency } from "./state.ts";

export const DEFAULT_API_KEY = "sk_sandbox_0000000000000000000000000000000000";
export const DEFAULT_WEBHOOK_SECRET = "whsec_sandbox_local";

/** Opening balances in minor units (kobo, cents, sats). */
const DEFAULT_BALANCES: Record<WalletCurrency, number> = {
  NGN: 50_000_000,
  KES: 1_000_000,
  BTC: 5_000_000,
  USD: 0,
  ZAR: 0,
  GHS: 0,
};

export const PROFILE = {
  name: "Sandbox Merchant",
  email: "merchant@sandbox.mavapay.local",
  phone: "+2348000000000",
  businessName: "Sandbox Payouts Ltd",
  address: "1 Sandbox Way, Lagos",
  nationality: "NG",
} as const;

/** The NGN pay-in account of the NGN wallet (GET /bankaccount). */
const NGN_WALLET_ACCOUNT = {
  bankName: "WEMA BANK",
  bankCode: "000017",
  accountNumber: "8000000017",
  accountName: "Sandbox Payouts Ltd",
};

interface AccountSeed {
  apiKey: string;
  webhookUrl?: string;
  webhookSecret: string;
  balances?: Partial<Record<WalletCurrency, number>>;
  now: number;
}

export function createInitialState(seed: AccountSeed): SandboxState {
  const balances = { ...DEFAULT_BALANCES, ...seed.balances };
  const wallets = Object.fromEntries(
    ALL_WALLETS.map((currency) => [currency, { id: uuid(), currency, balance: BigInt(balances[currency]) }]),
  ) as AccountRecord["wallets"];
  const account: AccountRecord = {
    userId: uuid(),
    accountId: uuid(),
    apiKey: seed.apiKey,
    webhook: {
      id: `wh_${uuid().replace(/-/g, "").slice(0, 9)}`,
      url: seed.webhookUrl ?? "",
      secret: seed.webhookSecret,
      isActive: Boolean(seed.webhookUrl),
      createdAt: seed.now,
      updatedAt: seed.now,
    },
    // The real service's default (notes §2): a quote sent without `autopayout` keeps its funds in the wallet.
    settings: { id: uuid(), autopayout: false, language: "EN", notification: { email: true, sms: false } },
    wallets,
    bankAccount: { ...NGN_WALLET_ACCOUNT },
    createdAt: seed.now,
  };
  return {
    account,
    quotes: new Map(),
    orders: new Map(),
    transactions: [],
    paymentLinks: new Map(),
    nameEnquiries: [],
  };
}

export function credit(state: SandboxState, currency: WalletCurrency, amount: number): void {
  state.account.wallets[currency].balance += BigInt(amount);
}

export function debit(state: SandboxState, currency: WalletCurrency, amount: number): void {
  state.account.wallets[currency].balance -= BigInt(amount);
}
