import { createHash } from "node:crypto";
import type { Core } from "#src/standins/sandbox/core.js";
import { ApiError, badRequest } from "#src/standins/sandbox/http/errors.js";

/**
 * Deterministic name enquiry (document in docs/sandbox.md — other tests depend on these values):
 * - "0000000000" → 400 "Invalid account number"
 * - "1111111111" → 400 "Account verification failed" (always)
 * - unknown bank code → 400 "Invalid bank code"
 * - 0149200000 at 000013 (the staging test account) → "OLADEJI OLAOLU"
 * - any other 10-digit number at a known bank → a fixed Nigerian-looking name derived from the digits
 */

const INVALID_ACCOUNT = "0000000000";
const VERIFICATION_FAILS_ACCOUNT = "1111111111";
export const STAGING_ACCOUNT = { accountNumber: "0149200000", bankCode: "000013", name: "OLADEJI OLAOLU" };

const FIRST_NAMES = [
  "ADAEZE",
  "ADEBAYO",
  "AMAKA",
  "BOLANLE",
  "CHIDI",
  "CHIOMA",
  "EMEKA",
  "FUNMILAYO",
  "IBRAHIM",
  "IFEOMA",
  "KEHINDE",
  "MUSA",
  "NGOZI",
  "OLUWASEUN",
  "SEGUN",
  "TEMITOPE",
  "TUNDE",
  "UCHE",
  "YETUNDE",
  "ZAINAB",
];
const SURNAMES = [
  "ABUBAKAR",
  "ADEYEMI",
  "BELLO",
  "EZE",
  "NWOSU",
  "OKAFOR",
  "OKONKWO",
  "OLADIPO",
  "ONYEKACHI",
  "USMAN",
];

interface NameEnquiryResult {
  accountName: string;
  accountNumber: string;
  bankCode: string;
  kycLevel: string;
  nameInquiryReference: string;
  channelCode: string;
}

/** Name for an account number (bank-independent except for the staging test account). */
function nameFor(accountNumber: string, bankCode: string): string {
  if (accountNumber === STAGING_ACCOUNT.accountNumber && bankCode === STAGING_ACCOUNT.bankCode) {
    return STAGING_ACCOUNT.name;
  }
  const value = BigInt(accountNumber);
  const first = FIRST_NAMES[Number(value % BigInt(FIRST_NAMES.length))] ?? "ADA";
  const last = SURNAMES[Number((value / BigInt(FIRST_NAMES.length)) % BigInt(SURNAMES.length))] ?? "EZE";
  return `${first} ${last}`;
}

/** The lookup itself, without rate limiting (POST /withdraw reuses it). */
export function lookupName(core: Core, accountNumber: string, bankCode: string): NameEnquiryResult {
  if (!/^\d{10}$/.test(accountNumber))
    throw badRequest("Invalid account number: it must be exactly 10 digits");
  if (!core.banks.ngnByCode(bankCode)) throw badRequest("Invalid bank code");
  if (accountNumber === INVALID_ACCOUNT) throw badRequest("Invalid account number");
  if (accountNumber === VERIFICATION_FAILS_ACCOUNT) throw badRequest("Account verification failed");
  const reference = createHash("sha256").update(`${bankCode}:${accountNumber}`).digest("hex");
  return {
    accountName: nameFor(accountNumber, bankCode),
    accountNumber,
    bankCode,
    kycLevel: "3",
    nameInquiryReference: BigInt(`0x${reference.slice(0, 12)}`)
      .toString()
      .padStart(15, "0"),
    channelCode: "1",
  };
}

/** Sliding one-minute window on the sandbox clock, per API key (there is one). */
export function checkNameEnquiryRate(core: Core): void {
  const now = core.clock.now();
  const windowStart = now - 60_000;
  const recent = core.state.nameEnquiries.filter((at) => at > windowStart);
  core.state.nameEnquiries = recent;
  if (recent.length >= core.limits.nameEnquiryPerMinute) {
    const oldest = recent[0] ?? now;
    const retryAfter = Math.max(1, Math.ceil((oldest + 60_000 - now) / 1000));
    throw new ApiError(429, "Rate limit exceeded", { "retry-after": String(retryAfter) });
  }
  recent.push(now);
}
