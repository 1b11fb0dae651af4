import { z } from "zod";
import { CURRENCY_CODES } from "#src/money/currencies.js";
import { beneficiarySchema, speedSchema } from "./beneficiary.ts";
import { minorAmount, opt, rate } from "./common.ts";

/** Quote (spec 2.1). Bank fields appear on BANKTRANSFER quotes; `invoice` is "" when there is none. */
export const quoteSchema = z.looseObject({
  id: z.string(),
  exchangeRate: opt(rate),
  usdToTargetCurrencyRate: opt(rate),
  sourceCurrency: z.string(),
  targetCurrency: z.string(),
  transactionFeesInSourceCurrency: opt(minorAmount),
  transactionFeesInTargetCurrency: opt(minorAmount),
  amountInSourceCurrency: minorAmount,
  amountInTargetCurrency: minorAmount,
  paymentMethod: opt(z.string()),
  expiry: z.string(),
  isValid: opt(z.boolean()),
  // One real sample omits it; normalise to "" as the spec describes "no invoice".
  invoice: z
    .string()
    .nullish()
    .transform((value) => value ?? ""),
  hash: opt(z.string()),
  customerReference: opt(z.string()),
  totalAmountInSourceCurrency: opt(minorAmount),
  customerInternalFee: opt(minorAmount),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
  bankName: opt(z.string()),
  ngnBankAccountNumber: opt(z.string()),
  ngnAccountName: opt(z.string()),
  ngnBankCode: opt(z.string()),
  estimatedRoutingFee: opt(minorAmount),
  orderId: opt(z.string()),
});
export type Quote = z.output<typeof quoteSchema>;

/** Quotes nested in orders carry fewer fields; every field is optional there. */
export const nestedQuoteSchema = quoteSchema.partial();

const PAYMENT_METHODS = ["LIGHTNING", "BANKTRANSFER"] as const;

/**
 * POST /quote body. `autopayout` is required here on purpose: the spec's default is true, the real service's
 * false, so the client always sends it.
 */
export const quoteRequestSchema = z
  .strictObject({
    /** Minor units of `paymentCurrency`. */
    amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    sourceCurrency: z.enum(["BTCSAT", "NGNKOBO"]),
    targetCurrency: z.enum(CURRENCY_CODES),
    paymentMethod: z.enum(PAYMENT_METHODS),
    paymentCurrency: z.enum(CURRENCY_CODES),
    autopayout: z.boolean(),
    customerReference: z.string().min(1).optional(),
    speed: speedSchema.optional(),
    beneficiary: beneficiarySchema.optional(),
  })
  .refine((request) => [request.sourceCurrency, request.targetCurrency].includes(request.paymentCurrency), {
    path: ["paymentCurrency"],
    message: "must equal sourceCurrency or targetCurrency",
  });
export type QuoteRequest = z.input<typeof quoteRequestSchema>;
