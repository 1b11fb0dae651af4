import { z } from "zod";
import { list, opt, rate, stringish } from "./common.ts";

/** Bank list, name enquiry and price (spec 2.8). */

/** GET /bank/bankcode?country=NG item. Names are verbatim (some end in a no-break space). */
const bankSchema = z.looseObject({
  bankName: z.string(),
  /** 6-digit NIP code, sent as `bankCode`. */
  nipBankCode: stringish,
});
export type Bank = z.output<typeof bankSchema>;
export const bankListSchema = list(bankSchema);

/** GET /bank/bankcode?country=ZA: plain bank names. */
export const zaBankListSchema = list(z.string());

/** GET /bank/name-enquiry: either {accountName, accountNumber, bankCode} or the kycLevel/reference variant. */
export const nameEnquirySchema = z.looseObject({
  accountName: z.string(),
  accountNumber: stringish,
  bankCode: opt(z.string()),
  kycLevel: opt(stringish),
  nameInquiryReference: opt(z.string()),
  channelCode: opt(z.string()),
});
export type NameEnquiry = z.output<typeof nameEnquirySchema>;

const unitPrice = z.looseObject({ amount: rate, currencyUnit: z.string() });

/** GET /price: rates are numbers (not minor units); `timestamp` is Unix seconds. */
export const priceSchema = z.looseObject({
  currency: z.string(),
  timestamp: opt(rate),
  btcPriceInUnitCurrency: rate,
  unitPricePerSat: opt(unitPrice),
  unitPricePerUsd: opt(unitPrice),
});
export type Price = z.output<typeof priceSchema>;
