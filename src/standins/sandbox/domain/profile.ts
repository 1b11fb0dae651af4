import { type Core, iso } from "#src/standins/sandbox/core.js";
import { PROFILE } from "./account.ts";
import { LISTED_WALLETS, type WalletRecord } from "./state.ts";
import { transactionView } from "./views.ts";

/** GET /user, /wallet and /bankaccount shapes (spec 2.4–2.6). */

export function walletView(core: Core, wallet: WalletRecord) {
  return {
    id: wallet.id,
    accountId: core.state.account.accountId,
    currency: wallet.currency,
    balance: Number(wallet.balance),
  };
}

export function listedWallets(core: Core): WalletRecord[] {
  return LISTED_WALLETS.map((currency) => core.state.account.wallets[currency]);
}

export function bankAccountView(core: Core) {
  const { account } = core.state;
  return {
    bankName: account.bankAccount.bankName,
    bankCode: account.bankAccount.bankCode,
    bankAccountNumber: account.bankAccount.accountNumber,
    bankAccountName: account.bankAccount.accountName,
    currency: "NGN",
    walletId: account.wallets.NGN.id,
  };
}

/** Sats moved by paid quotes (either side in BTC). */
function totalSatsExchanged(core: Core): number {
  let total = 0;
  for (const quote of core.state.quotes.values()) {
    if (quote.paidAt === undefined) continue;
    if (quote.sourceCurrency === "BTCSAT") total += quote.amountInSource;
    else if (quote.targetCurrency === "BTCSAT") total += quote.amountInTarget;
  }
  return total;
}

export function userView(core: Core) {
  const { account } = core.state;
  const ngn = account.wallets.NGN;
  return {
    id: account.userId,
    name: PROFILE.name,
    email: PROFILE.email,
    phone: PROFILE.phone,
    businessName: PROFILE.businessName,
    emailVerified: true,
    kycInfo: {
      address: PROFILE.address,
      phone: PROFILE.phone,
      nationality: PROFILE.nationality,
      businessName: PROFILE.businessName,
      status: "APPROVED",
    },
    account: {
      id: account.accountId,
      type: "BUSINESS",
      status: "ACTIVE",
      ownerId: account.userId,
      apiKey: account.apiKey,
      totalSatsExchanged: totalSatsExchanged(core),
      walletDetails: {
        id: ngn.id,
        currency: ngn.currency,
        balance: ngn.balance.toString(),
        bankAccount: bankAccountView(core),
        transactions: core.state.transactions.filter((tx) => tx.walletId === ngn.id).map(transactionView),
      },
      webhook: {
        id: account.webhook.id,
        url: account.webhook.url,
        secret: account.webhook.secret,
        isActive: account.webhook.isActive,
      },
      settings: {
        id: account.settings.id,
        autopayout: account.settings.autopayout,
        language: account.settings.language,
        notification: { ...account.settings.notification },
      },
      createdAt: iso(account.createdAt),
    },
  };
}
