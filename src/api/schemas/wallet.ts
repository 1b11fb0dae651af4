import { z } from "zod";
import { list, minorAmount, opt, stringish } from "./common.ts";

/** Wallet (spec 2.4): balance in minor units of its currency (a string inside the profile). */
const walletSchema = z.looseObject({
  id: z.string(),
  accountId: opt(z.string()),
  /** NGN, KES, BTC, USD, ZAR, GHS, USDT… (open). */
  currency: z.string(),
  balance: minorAmount,
});
export type Wallet = z.output<typeof walletSchema>;
export const walletListSchema = list(walletSchema);

/** Pay-in bank account of a wallet (spec 2.5). */
export const bankAccountSchema = z.looseObject({
  bankName: z.string(),
  bankCode: opt(z.string()),
  bankAccountNumber: stringish,
  bankAccountName: opt(z.string()),
  currency: opt(z.string()),
  walletId: opt(z.string()),
});
export type BankAccount = z.output<typeof bankAccountSchema>;
export const bankAccountListSchema = list(bankAccountSchema);
