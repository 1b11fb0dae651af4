import { z } from "zod";

/** Beneficiaries we send (spec 2.8 and the beneficiary guide). Strict objects: a typo fails before the call. */

export const speedSchema = z.enum(["slow", "medium", "fast"]);
export type Speed = z.output<typeof speedSchema>;

const nonEmpty = z.string().trim().min(1);
/** International format with the leading + (e.g. +254712345678). */
const internationalPhone = z
  .string()
  .regex(/^\+\d{7,15}$/, "must be in international format, e.g. +254712345678");

export const ngnBankBeneficiarySchema = z.strictObject({
  bankAccountNumber: z.string().regex(/^\d{10}$/, "must be exactly 10 digits"),
  bankAccountName: nonEmpty,
  /** The 6-digit NIP code from the bank list. */
  bankCode: nonEmpty,
  bankName: nonEmpty,
});
export type NgnBankBeneficiary = z.input<typeof ngnBankBeneficiarySchema>;

export const onChainBeneficiarySchema = z.strictObject({ onChainAddress: nonEmpty });
const lnInvoiceBeneficiarySchema = z.strictObject({ lnInvoice: nonEmpty });
const lnAddressBeneficiarySchema = z.strictObject({ lnAddress: nonEmpty });

/** M-Pesa / Airtel phone. `network` is required by the real service from 2026-07-12, so it is required here. */
const kesPhoneBeneficiarySchema = z.strictObject({
  identifierType: z.literal("paytophone"),
  identifiers: z.strictObject({
    phoneNumber: internationalPhone,
    accountName: nonEmpty.optional(),
    network: z.enum(["mpesa", "airtel"]),
  }),
});

const kesBillBeneficiarySchema = z.strictObject({
  identifierType: z.literal("paytobill"),
  identifiers: z.strictObject({
    paybillNumber: nonEmpty,
    accountNumber: nonEmpty,
    accountName: nonEmpty.optional(),
  }),
});

/** Spec form: the till number goes in identifiers.accountNumber. */
const kesTillBeneficiarySchema = z.strictObject({
  identifierType: z.literal("paytotill"),
  identifiers: z.strictObject({ accountNumber: nonEmpty }),
});

/** `bankName` must be one of GET /bank/bankcode?country=ZA; account numbers are not validated by the API. */
const zarBankBeneficiarySchema = z.strictObject({
  name: nonEmpty,
  bankName: nonEmpty,
  bankAccountNumber: z.string().regex(/^\d{5,20}$/, "must be digits"),
});

const ghsMtnBeneficiarySchema = z.strictObject({
  identifierType: z.literal("MTN"),
  identifiers: z.strictObject({ phoneNumber: internationalPhone, accountName: nonEmpty }),
});

export const beneficiarySchema = z.union([
  ngnBankBeneficiarySchema,
  onChainBeneficiarySchema,
  lnInvoiceBeneficiarySchema,
  lnAddressBeneficiarySchema,
  kesPhoneBeneficiarySchema,
  kesBillBeneficiarySchema,
  kesTillBeneficiarySchema,
  zarBankBeneficiarySchema,
  ghsMtnBeneficiarySchema,
]);

type KesPhoneBeneficiary = z.input<typeof kesPhoneBeneficiarySchema>;
type KesBillBeneficiary = z.input<typeof kesBillBeneficiarySchema>;
type KesTillBeneficiary = z.input<typeof kesTillBeneficiarySchema>;
export type KesBeneficiary = KesPhoneBeneficiary | KesBillBeneficiary | KesTillBeneficiary;
export type ZarBankBeneficiary = z.input<typeof zarBankBeneficiarySchema>;
export type GhsMtnBeneficiary = z.input<typeof ghsMtnBeneficiarySchema>;
