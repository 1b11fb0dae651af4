import type { Quote } from "#src/api/index.js";
import type { OrderRecord } from "#src/store/index.js";

/**
 * The account a bank-transfer quote asks the payer to transfer naira into (a purchase of bitcoin, a naira-funded
 * payout), as the order keeps it; undefined when the quote lacks it, which the caller refuses as an unusable answer.
 */
export function payInOf(quote: Quote): NonNullable<OrderRecord["payIn"]> | undefined {
  if (!quote.bankName || !quote.ngnBankAccountNumber || !quote.ngnAccountName) return undefined;
  return {
    bankName: quote.bankName,
    accountNumber: quote.ngnBankAccountNumber,
    accountName: quote.ngnAccountName,
    ...(quote.ngnBankCode ? { bankCode: quote.ngnBankCode } : {}),
  };
}
