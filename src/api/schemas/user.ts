import { z } from "zod";
import { list, minorAmount, opt } from "./common.ts";
import { transactionSchema } from "./transaction.ts";
import { bankAccountSchema } from "./wallet.ts";

/** GET /user (spec 2.6). Holds the API key and webhook secret: never log it. */

const kycInfoSchema = z.looseObject({
  address: opt(z.string()),
  phone: opt(z.string()),
  nationality: opt(z.string()),
  businessName: opt(z.string()),
  /** PENDING, APPROVED, REJECTED. */
  status: opt(z.string()),
});

const walletDetailsSchema = z.looseObject({
  id: opt(z.string()),
  currency: opt(z.string()),
  balance: opt(minorAmount),
  bankAccount: opt(bankAccountSchema.partial()),
  transactions: list(transactionSchema),
});

const accountWebhookSchema = z.looseObject({
  id: opt(z.string()),
  url: opt(z.string()),
  secret: opt(z.string()),
  isActive: opt(z.boolean()),
});

const accountSettingsSchema = z.looseObject({
  id: opt(z.string()),
  autopayout: opt(z.boolean()),
  /** The account's language: the bot's default language. */
  language: opt(z.string()),
  notification: opt(z.looseObject({ email: opt(z.boolean()), sms: opt(z.boolean()) })),
});

const accountSchema = z.looseObject({
  id: opt(z.string()),
  /** INDIVIDUAL, BUSINESS, ADMIN. */
  type: opt(z.string()),
  /** ACTIVE, INACTIVE. */
  status: opt(z.string()),
  ownerId: opt(z.string()),
  apiKey: opt(z.string()),
  totalSatsExchanged: opt(minorAmount),
  walletDetails: opt(walletDetailsSchema),
  webhook: opt(accountWebhookSchema),
  settings: opt(accountSettingsSchema),
});

export const userProfileSchema = z.looseObject({
  id: z.string(),
  name: opt(z.string()),
  email: opt(z.string()),
  phone: opt(z.string()),
  businessName: opt(z.string()),
  emailVerified: opt(z.boolean()),
  kycInfo: opt(kycInfoSchema),
  account: opt(accountSchema),
});
export type UserProfile = z.output<typeof userProfileSchema>;
