import { z } from "zod";
import { SPEEDS, UNITS } from "#src/standins/sandbox/units.js";
import { httpUrl, minorAmount, oneOf, optionalBoolean, text } from "./common.ts";

/** Bodies and queries of the public API (spec 4, api-behaviour-notes §6–§11). */

export const quoteRequest = z.object(
  {
    amount: minorAmount,
    sourceCurrency: oneOf(["BTCSAT", "NGNKOBO"]).default("BTCSAT"),
    targetCurrency: oneOf(UNITS).default("NGNKOBO"),
    paymentMethod: oneOf(["LIGHTNING", "BANKTRANSFER"]).default("LIGHTNING"),
    paymentCurrency: oneOf(UNITS),
    customerReference: z.string({ error: "must be a string" }).trim().max(256).optional(),
    autopayout: optionalBoolean,
    speed: oneOf(SPEEDS).optional(),
    customerInternalFee: z
      .number({ error: "must be a number" })
      .int("must be an integer (minor units of the source currency)")
      .min(0, "must be >= 0")
      .optional(),
    beneficiary: z.unknown().optional(),
  },
  { error: "The body must be a JSON object" },
);
export type QuoteRequest = z.output<typeof quoteRequest>;

export const simulationRequest = z
  .object(
    {
      // Checked against the quote by the route: anything but NGN/BTC is "Invalid currency".
      currency: z
        .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
        .trim()
        .toUpperCase(),
      quoteId: z.string({ error: "must be a string" }).trim().min(1).optional(),
      orderId: z.string({ error: "must be a string" }).trim().min(1).optional(),
      amount: minorAmount.optional(),
    },
    { error: "The body must be a JSON object" },
  )
  .refine((value) => value.quoteId !== undefined || value.orderId !== undefined, {
    message: "quoteId or orderId is required",
  });

const ngnBeneficiary = z.object({
  bankAccountNumber: z.string({ error: "is required" }).trim(),
  bankAccountName: z.string({ error: "is required" }),
  bankCode: z.string({ error: "is required" }).trim(),
  bankName: z.string({ error: "is required" }),
});

export const withdrawRequest = z.object(
  {
    amount: minorAmount,
    currency: z.literal("NGN", { error: "must be NGN (the only supported withdrawal currency)" }),
    beneficiary: ngnBeneficiary,
  },
  { error: "The body must be a JSON object" },
);

export const withdrawBtcRequest = z.object(
  {
    invoice: text(4096),
    memo: z.string({ error: "must be a string" }).max(640, "must be at most 640 characters").optional(),
  },
  { error: "The body must be a JSON object" },
);

const LINK_PAYMENT_METHODS = ["BANKTRANSFER", "LIGHTNING"] as const;

export const paymentLinkRequest = z.object(
  {
    name: text(),
    description: z.string({ error: "must be a string" }).max(1000).default(""),
    type: z
      .string({ error: "must be a string" })
      .trim()
      .transform((value) => value.toUpperCase())
      .pipe(z.enum(["ONE_TIME", "RECURRING"], { error: "must be One_Time or Recurring" }))
      .default("ONE_TIME"),
    addFeeToTotalCost: z.boolean({ error: "must be true or false" }).default(false),
    settlementCurrency: z.literal("BTC", { error: "must be BTC" }),
    settlementMethod: z.literal("ONCHAIN", { error: "must be ONCHAIN" }),
    speed: oneOf(SPEEDS).optional(),
    paymentCurrency: z.literal("NGN", { error: "must be NGN" }).default("NGN"),
    // The spec lists BANKTRANSFER only; the real service also takes LIGHTNING (notes §2, §9).
    paymentMethods: z
      .array(z.string({ error: "must be strings" }).trim().toUpperCase().pipe(oneOf(LINK_PAYMENT_METHODS)), {
        error: "must be an array",
      })
      .min(1, "must not be empty")
      .default(["BANKTRANSFER"])
      .refine((methods) => new Set(methods).size === methods.length, { message: "must not repeat a method" }),
    beneficiary: z.object(
      { onChainAddress: text(128) },
      { error: (issue) => (issue.input === undefined ? "is required" : "must be an object") },
    ),
    amount: minorAmount,
    callbackUrl: httpUrl.optional(),
  },
  { error: "The body must be a JSON object" },
);

export const webhookRequest = z.object(
  {
    url: httpUrl,
    secret: z.string({ error: "must be a string" }).min(1, "must not be empty").max(256).optional(),
  },
  { error: "The body must be a JSON object" },
);
