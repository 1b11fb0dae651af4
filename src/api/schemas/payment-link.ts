import { z } from "zod";
import { onChainBeneficiarySchema, speedSchema } from "./beneficiary.ts";
import { list, minorAmount, opt, rate, stringish } from "./common.ts";

/** Payment links (spec 2.7, 4 /paymentlink*). Real links may also settle over LIGHTNING: methods stay open. */

const paymentLinkOrderSchema = z.looseObject({
  id: opt(z.string()),
  /** PENDING, SETTLED, EXPIRED, FAILED, CANCELLED. */
  status: z.string(),
  orderId: z.string(),
  paymentLinkId: opt(z.string()),
  paymentMethod: opt(z.string()),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
});

/** GET /paymentlink/orders `data`: the link with its orders. `amount` is a minor-unit string → integer. */
export const paymentLinkSchema = z.looseObject({
  id: z.string(),
  name: opt(z.string()),
  description: opt(z.string()),
  /** ONE_TIME, RECURRING. */
  type: opt(z.string()),
  amount: opt(minorAmount),
  fee: opt(rate),
  addFeeToTotalCost: opt(z.boolean()),
  settlementCurrency: opt(z.string()),
  settlementMethod: opt(z.string()),
  speed: opt(z.string()),
  paymentCurrency: opt(z.string()),
  paymentMethods: list(z.string()),
  callbackUrl: opt(z.string()),
  channel: opt(z.string()),
  /** ACTIVE, INACTIVE, EXPIRED. */
  status: opt(z.string()),
  accountId: opt(z.string()),
  expiresAt: opt(z.string()),
  invoice: opt(z.string()),
  companyLogo: opt(z.string()),
  /** The on-chain destination address. */
  beneficiaryId: opt(z.string()),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
  orders: list(paymentLinkOrderSchema),
});
export type PaymentLink = z.output<typeof paymentLinkSchema>;

/** POST /paymentlink `data`. */
export const createdPaymentLinkSchema = z.looseObject({
  /** URL of the hosted checkout page. */
  paymentLink: z.string(),
  /** The link id (UUID). */
  paymentRef: z.string(),
});
export type CreatedPaymentLink = z.output<typeof createdPaymentLinkSchema>;

const timestamp = z.union([z.string(), z.number()]);

const bankTransferPayInSchema = z.looseObject({
  ngnAccountName: opt(z.string()),
  ngnBankName: opt(z.string()),
  ngnBankAccountNumber: opt(stringish),
  /** To pay, in kobo. */
  amount: opt(minorAmount),
  expiresAt: opt(timestamp),
  /** What settles, in sats. */
  targetAmount: opt(minorAmount),
});

const lightningPayInSchema = z.looseObject({
  invoice: opt(z.string()),
  amount: opt(minorAmount),
  targetAmount: opt(minorAmount),
  expiresAt: opt(timestamp),
});

const paymentLinkDetailsSchema = z.looseObject({
  id: z.string(),
  name: opt(z.string()),
  description: opt(z.string()),
  callbackUrl: opt(z.string()),
  settlementCurrency: opt(z.string()),
  paymentLinkOrderId: opt(z.string()),
  paymentMethods: list(z.string()),
  account: opt(z.looseObject({ name: opt(z.string()), logo: opt(z.string()) })),
  BANKTRANSFER: opt(bankTransferPayInSchema),
  LIGHTNING: opt(lightningPayInSchema),
});
export type PaymentLinkDetails = z.output<typeof paymentLinkDetailsSchema>;

/** GET /paymentlink/details `data` is `{paymentLinkDetails: …}`; a bare details object is tolerated. */
export const paymentLinkDetailsResponseSchema = z.union([
  z
    .looseObject({ paymentLinkDetails: paymentLinkDetailsSchema })
    .transform((data) => data.paymentLinkDetails),
  paymentLinkDetailsSchema,
]);

/**
 * POST /paymentlink body. Defaults are the only combination the spec supports: a one-time link paid by NGN bank
 * transfer, settled on-chain in BTC.
 */
export const paymentLinkRequestSchema = z.strictObject({
  name: z.string().trim().min(1),
  description: z.string().default(""),
  /** Sent as "One_Time" (the API answers ONE_TIME). */
  type: z.string().default("One_Time"),
  addFeeToTotalCost: z.boolean().default(false),
  settlementCurrency: z.string().default("BTC"),
  settlementMethod: z.string().default("ONCHAIN"),
  speed: speedSchema.default("medium"),
  paymentCurrency: z.string().default("NGN"),
  paymentMethods: z.array(z.string()).min(1).default(["BANKTRANSFER"]),
  beneficiary: onChainBeneficiarySchema,
  /** Minor units of paymentCurrency. */
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  callbackUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type PaymentLinkRequest = z.input<typeof paymentLinkRequestSchema>;
