import type {
  GhsMtnBeneficiary,
  KesBeneficiary,
  NgnBankBeneficiary,
  ZarBankBeneficiary,
} from "#src/api/index.js";
import type { ApiFailure } from "#src/bot/flow/flow-io.js";
import { maskDigitRuns } from "#src/log/mask.js";

/** What the user types for a beneficiary, checked before any API call; labels for cards and saved recipients. */

export type PayoutBeneficiary = NgnBankBeneficiary | KesBeneficiary | ZarBankBeneficiary | GhsMtnBeneficiary;

type DigitsResult =
  | { ok: true; value: string }
  | { ok: false; reason: "not_digits" | "length"; count: number };

/** Digits with spaces, dashes and dots allowed between them; anything else is not a number. */
function digitsOf(text: string, min: number, max: number): DigitsResult {
  const compact = text
    .normalize("NFKC")
    .trim()
    .replace(/[\s\-.]/g, "");
  const count = compact.replace(/\D/g, "").length;
  if (!/^\d+$/.test(compact)) return { ok: false, reason: "not_digits", count };
  if (compact.length < min || compact.length > max) return { ok: false, reason: "length", count };
  return { ok: true, value: compact };
}

/** NUBAN: exactly 10 digits (spec 8). */
export const parseNgAccountNumber = (text: string) => digitsOf(text, 10, 10);
/** South African account numbers: 6 to 16 digits in practice (the API does not validate them). */
export const parseZaAccountNumber = (text: string) => digitsOf(text, 6, 16);
/** M-Pesa paybill (business) numbers: 5 to 7 digits. */
export const parsePaybillNumber = (text: string) => digitsOf(text, 5, 7);
/** M-Pesa till (Buy Goods) numbers: 5 to 7 digits. */
export const parseTillNumber = (text: string) => digitsOf(text, 5, 7);

/** The account a paybill is paid into (meter number, invoice, name): short printable text. */
export function parseBillAccount(text: string): { ok: true; value: string } | { ok: false } {
  const value = text.normalize("NFKC").trim().replace(/\s+/g, " ");
  if (value.length < 1 || value.length > 30 || !/^[\p{L}\p{N} ._\-/#]+$/u.test(value)) return { ok: false };
  return { ok: true, value };
}

/** A person's or business's name: 2–70 characters, at least two letters, no markup or odd symbols. */
export function parseRecipientName(text: string): { ok: true; value: string } | { ok: false } {
  const value = text.normalize("NFKC").trim().replace(/\s+/g, " ");
  const letters = value.match(/\p{L}/gu)?.length ?? 0;
  if (value.length < 2 || value.length > 70 || letters < 2) return { ok: false };
  if (!/^[\p{L}\p{M}\p{N} .,'’&()\-/]+$/u.test(value)) return { ok: false };
  return { ok: true, value };
}

/** Why a name enquiry failed, as far as the user can act on it (spec 7; behaviour notes 4). */
type EnquiryProblem =
  | { kind: "invalid_account" }
  | { kind: "invalid_bank" }
  | { kind: "verification_failed" }
  | { kind: "rate_limited"; seconds: number }
  | { kind: "unavailable" }
  | { kind: "rejected"; reason: string };

export function classifyEnquiryFailure(failure: ApiFailure): EnquiryProblem {
  const message = failure.apiMessage ?? "";
  if (failure.kind === "rate_limited" || /rate limit|too many/i.test(message)) {
    return { kind: "rate_limited", seconds: Math.max(1, Math.ceil((failure.retryAfterMs ?? 30_000) / 1000)) };
  }
  if (failure.kind === "validation" || failure.kind === "not_found") {
    if (/verification failed/i.test(message)) return { kind: "verification_failed" };
    if (/invalid bank code/i.test(message)) return { kind: "invalid_bank" };
    if (/invalid account/i.test(message) || failure.kind === "not_found") return { kind: "invalid_account" };
    return { kind: "rejected", reason: message };
  }
  return { kind: "unavailable" };
}

/** "••6789": the last four digits of an account or phone (or a short tail of a text reference). */
export function maskTail(value: string): string {
  const digits = value.replace(/\D/g, "");
  if (digits.length >= 4) return `••${digits.slice(-4)}`;
  const chars = value.replace(/\s/g, "");
  const visible = Math.min(4, Math.floor(chars.length / 2));
  return `••${visible > 0 ? chars.slice(-visible) : ""}`;
}

interface RecipientView {
  /** The person or business (verified by the bank for NGN). */
  name: string;
  /** Where the money goes, masked: "GTBANK PLC ••6789", "M-Pesa ••5678", "Till 123456". */
  where: string;
}

/**
 * Display parts of a beneficiary. `names` are the localized method words (M-Pesa, Airtel Money, Paybill, Till,
 * MTN MoMo). Account numbers and phones are masked; paybill and till numbers are public business numbers.
 */
export function describeBeneficiary(
  beneficiary: PayoutBeneficiary,
  names: { mpesa: string; airtel: string; paybill: string; till: string; mtn: string },
  fallbackName = "",
): RecipientView {
  if ("bankCode" in beneficiary) {
    return {
      name: beneficiary.bankAccountName,
      where: `${beneficiary.bankName.trim()} ${maskTail(beneficiary.bankAccountNumber)}`,
    };
  }
  if ("bankAccountNumber" in beneficiary) {
    return {
      name: beneficiary.name,
      where: `${beneficiary.bankName} ${maskTail(beneficiary.bankAccountNumber)}`,
    };
  }
  if (beneficiary.identifierType === "MTN") {
    return {
      name: beneficiary.identifiers.accountName,
      where: `${names.mtn} ${maskTail(beneficiary.identifiers.phoneNumber)}`,
    };
  }
  if (beneficiary.identifierType === "paytophone") {
    const network = beneficiary.identifiers.network === "airtel" ? names.airtel : names.mpesa;
    return {
      name: beneficiary.identifiers.accountName ?? fallbackName,
      where: `${network} ${maskTail(beneficiary.identifiers.phoneNumber)}`,
    };
  }
  if (beneficiary.identifierType === "paytobill") {
    return {
      name: beneficiary.identifiers.accountName ?? fallbackName,
      where: `${names.paybill} ${beneficiary.identifiers.paybillNumber} · ${maskTail(beneficiary.identifiers.accountNumber)}`,
    };
  }
  return { name: fallbackName, where: `${names.till} ${beneficiary.identifiers.accountNumber}` };
}

/** "GTBANK PLC ••6789 · ADA OBI" — the order's recipientLabel and a saved recipient's label. */
export function recipientLabel(view: RecipientView): string {
  return view.name ? `${view.where} · ${view.name}` : view.where;
}

/** A stored label where it is shown again: masked when it was stored; an older record's long digit runs are masked. */
export function shownLabel(label: string): string {
  return maskDigitRuns(label);
}
