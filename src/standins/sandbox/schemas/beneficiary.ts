import { Network, validate as validateAddress } from "bitcoin-address-validation";
import { z } from "zod";
import type { BankDirectory } from "#src/standins/sandbox/domain/banks.js";
import type { Beneficiary } from "#src/standins/sandbox/domain/state.js";
import { badRequest, parseWith } from "#src/standins/sandbox/http/errors.js";
import type { Currency } from "#src/standins/sandbox/units.js";
import { digits, oneOf, text } from "./common.ts";

/** Request-side beneficiary shapes (spec 2.8 and api-behaviour-notes §8), validated per target. */

const ngnBank = z.object({
  bankAccountNumber: digits("must be exactly 10 digits", /^\d{10}$/),
  bankAccountName: text(),
  bankCode: digits("must be a NIP bank code (digits, from GET /bank/bankcode)", /^\d{3,6}$/),
  bankName: z.string().trim().optional(),
});

const kesPhone = digits(
  "must be a Kenyan number in international format: +254 then 9 digits",
  /^\+254\d{9}$/,
);

const kes = z.discriminatedUnion(
  "identifierType",
  [
    z.object({
      identifierType: z.literal("paytophone"),
      identifiers: z.object({
        phoneNumber: kesPhone,
        accountName: z.string().trim().optional(),
        network: oneOf(["mpesa", "airtel"]).optional(),
      }),
    }),
    z.object({
      identifierType: z.literal("paytobill"),
      identifiers: z.object({
        paybillNumber: digits("must be a paybill number (digits)", /^\d{4,10}$/),
        accountNumber: text(64),
        accountName: z.string().trim().optional(),
      }),
    }),
    z.object({
      identifierType: z.literal("paytotill"),
      accountName: z.string().trim().optional(),
      identifiers: z
        .object({
          accountNumber: digits("must be a till number (digits)", /^\d{4,10}$/).optional(),
          tillNumber: digits("must be a till number (digits)", /^\d{4,10}$/).optional(),
          accountName: z.string().trim().optional(),
        })
        .refine((value) => value.accountNumber !== undefined || value.tillNumber !== undefined, {
          message: "tillNumber (or accountNumber) is required for paytotill",
        }),
    }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union" || issue.code === "invalid_type"
        ? "must be one of paytophone, paytobill, paytotill"
        : undefined,
  },
);

const zarBank = z.object({
  name: text(),
  bankName: text(),
  bankAccountNumber: digits("must be a bank account number (6 to 20 digits)", /^\d{6,20}$/),
});

const ghsMtn = z.object({
  identifierType: z.literal("MTN", { error: "must be MTN (the only supported GHS network)" }),
  identifiers: z.object({
    phoneNumber: digits(
      "must be a Ghanaian number in international format: +233 then 9 digits",
      /^\+233\d{9}$/,
    ),
    accountName: text(),
  }),
});

const btc = z
  .object({
    onChainAddress: z.string().trim().min(1).optional(),
    lnInvoice: z.string().trim().min(1).optional(),
    lnAddress: z
      .string()
      .trim()
      .regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, "must look like name@domain.tld")
      .optional(),
  })
  .refine(
    (value) =>
      [value.onChainAddress, value.lnInvoice, value.lnAddress].filter((field) => field !== undefined)
        .length === 1,
    { message: "must contain exactly one of onChainAddress, lnInvoice, lnAddress" },
  );

/** A signet/testnet address: tb1…, m…/n… (P2PKH) or 2… (P2SH). */
function isTestnetAddress(address: string): boolean {
  return validateAddress(address, Network.testnet);
}

export function parseOnChainAddress(address: string, field = "beneficiary.onChainAddress"): string {
  if (!isTestnetAddress(address)) {
    throw badRequest(`${field}: must be a signet/testnet Bitcoin address (tb1…, m…, n… or 2…)`);
  }
  return address;
}

/** Parse under a "beneficiary" key so that messages name the field: "beneficiary.bankCode …". */
function wrap<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = parseWith(z.object({ beneficiary: schema }), { beneficiary: raw }) as {
    beneficiary: z.output<S>;
  };
  return parsed.beneficiary;
}

export function parseBeneficiary(target: Currency, raw: unknown, banks: BankDirectory): Beneficiary {
  switch (target) {
    case "NGN": {
      const value = wrap(ngnBank, raw);
      const bank = banks.ngnByCode(value.bankCode);
      if (!bank) throw badRequest("Invalid bank code");
      return {
        kind: "ngn-bank",
        bankAccountNumber: value.bankAccountNumber,
        bankAccountName: value.bankAccountName,
        bankCode: value.bankCode,
        bankName: value.bankName || bank.bankName,
      };
    }
    case "KES": {
      const value = wrap(kes, raw);
      if (value.identifierType === "paytophone")
        return { kind: "kes", identifierType: "paytophone", ...value.identifiers };
      if (value.identifierType === "paytobill")
        return { kind: "kes", identifierType: "paytobill", ...value.identifiers };
      const till = value.identifiers.tillNumber ?? value.identifiers.accountNumber;
      return {
        kind: "kes",
        identifierType: "paytotill",
        tillNumber: till,
        accountNumber: till,
        accountName: value.accountName ?? value.identifiers.accountName,
      };
    }
    case "ZAR": {
      const value = wrap(zarBank, raw);
      if (!banks.isZaBank(value.bankName)) {
        throw badRequest("Invalid bank name: use a name from GET /bank/bankcode?country=ZA");
      }
      return { kind: "zar-bank", ...value };
    }
    case "GHS": {
      const value = wrap(ghsMtn, raw);
      return { kind: "ghs-mtn", identifierType: "MTN", ...value.identifiers };
    }
    case "BTC": {
      const value = wrap(btc, raw);
      if (value.onChainAddress)
        return { kind: "onchain", onChainAddress: parseOnChainAddress(value.onChainAddress) };
      if (value.lnInvoice) return { kind: "lninvoice", lnInvoice: value.lnInvoice };
      return { kind: "lnaddress", lnAddress: value.lnAddress ?? "" };
    }
  }
}

/**
 * The deterministic failure rule: a payout to any beneficiary identifier whose digits end in "999"
 * fails after the payment was received.
 */
export function payoutShouldFail(beneficiary: Beneficiary): boolean {
  const identifiers: Array<string | undefined> = [];
  switch (beneficiary.kind) {
    case "ngn-bank":
    case "zar-bank":
      identifiers.push(beneficiary.bankAccountNumber);
      break;
    case "kes":
      identifiers.push(beneficiary.phoneNumber, beneficiary.accountNumber, beneficiary.tillNumber);
      break;
    case "ghs-mtn":
      identifiers.push(beneficiary.phoneNumber);
      break;
    default:
      return false;
  }
  return identifiers.some((value) => value?.replace(/\D/g, "").endsWith("999") === true);
}
