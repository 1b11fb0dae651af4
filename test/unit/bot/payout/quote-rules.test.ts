import { describe, expect, it } from "vitest";
import type { Price, Quote } from "#src/api/index.js";
import {
  buildQuoteRequest,
  formatCountdown,
  quoteDeadlineMs,
  quoteFigures,
  verificationCode,
} from "#src/bot/payout/quote-orders.js";
import {
  classifyEnquiryFailure,
  describeBeneficiary,
  maskTail,
  parseNgAccountNumber,
  parseRecipientName,
  recipientLabel,
} from "#src/bot/payout/recipient.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { checkAmount, looksLikePhoneOrAccount, minimumPayout } from "#src/bot/rules/payout-amount.js";
import { methodOf } from "#src/corridors/index.js";

const price = (perUsd: number): Price => ({
  currency: "KES",
  btcPriceInUnitCurrency: 13_000_000,
  unitPricePerUsd: { amount: perUsd, currencyUnit: "KESUSD" },
});

describe("minimums", () => {
  it("NGN is fixed at 2000 naira; the others are 2 USD at the current price, rounded up", () => {
    expect(minimumPayout("NG", undefined)).toBe(200_000);
    expect(minimumPayout("KE", price(130))).toBe(26_000);
    expect(minimumPayout("ZA", price(18.1234567))).toBe(3_625);
    expect(minimumPayout("GH", undefined)).toBeUndefined();
  });
});

describe("amount checks", () => {
  const ng = { mode: "NGNKOBO", target: "NGNKOBO", minimum: 200_000, locale: "en" } as const;
  it("takes naira, and sats in naira mode", () => {
    expect(checkAmount("5,000", ng)).toEqual({ ok: true, minor: 500_000, currency: "NGNKOBO" });
    expect(checkAmount("₦2000.50", ng)).toEqual({ ok: true, minor: 200_050, currency: "NGNKOBO" });
    expect(checkAmount("21000 sats", ng)).toEqual({ ok: true, minor: 21_000, currency: "BTCSAT" });
  });
  it("takes sats, and naira in sats mode", () => {
    const sats = { ...ng, mode: "BTCSAT" } as const;
    expect(checkAmount("25,000", sats)).toEqual({ ok: true, minor: 25_000, currency: "BTCSAT" });
    expect(checkAmount("₦5,000", sats)).toEqual({ ok: true, minor: 500_000, currency: "NGNKOBO" });
  });
  it("catches mistakes before quoting", () => {
    expect(checkAmount("1500", ng)).toMatchObject({ ok: false, reason: "below_minimum" });
    expect(checkAmount("0803 123 4567", ng)).toMatchObject({ ok: false, reason: "looks_like_phone" });
    expect(checkAmount("+254712345678", ng)).toMatchObject({ ok: false, reason: "looks_like_phone" });
    expect(checkAmount("999999999", ng)).toMatchObject({ ok: false, reason: "too_large" });
    expect(checkAmount("abc", ng)).toMatchObject({ ok: false, reason: "not_a_number" });
    expect(checkAmount("-5000", ng)).toMatchObject({ ok: false, reason: "negative" });
    expect(checkAmount("$50", ng)).toMatchObject({ ok: false, reason: "wrong_currency", foreign: "USD" });
    expect(checkAmount("KSh 500", ng)).toMatchObject({
      ok: false,
      reason: "wrong_currency",
      detected: "KESCENT",
    });
    expect(checkAmount("2000.505", ng)).toMatchObject({ ok: false, reason: "too_many_decimals" });
  });
  it("tells a phone number from a big amount", () => {
    expect(looksLikePhoneOrAccount("0712345678")).toBe(true);
    expect(looksLikePhoneOrAccount("2000000")).toBe(false);
    expect(looksLikePhoneOrAccount("50,000")).toBe(false);
  });
});

describe("quote request and figures", () => {
  it("builds a Lightning payout request with autopayout and the toggle's currency", () => {
    const request = buildQuoteRequest({
      country: "KE",
      beneficiary: { identifierType: "paytotill", identifiers: { accountNumber: "123456" } },
      amount: { minor: 25_000, currency: "BTCSAT" },
      customerReference: "tg-1",
    });
    expect(request).toMatchObject({
      amount: 25_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "KESCENT",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "BTCSAT",
      autopayout: true,
      customerReference: "tg-1",
    });
  });

  it("reads the documented NGN quote sample", () => {
    const quote = {
      id: "e3cdeb26",
      exchangeRate: 168375961.2972606,
      sourceCurrency: "BTCSAT",
      targetCurrency: "NGNKOBO",
      transactionFeesInSourceCurrency: 59,
      amountInSourceCurrency: 6016,
      amountInTargetCurrency: 1_000_000,
      expiry: "2025-10-01T20:27:57.000Z",
      invoice: "lntbs1",
      totalAmountInSourceCurrency: 6016,
      customerInternalFee: 0,
    } as Quote;
    expect(quoteFigures(quote, "NGNKOBO")).toEqual({
      paySats: 6016,
      feeSats: 59,
      receive: 1_000_000,
      target: "NGNKOBO",
    });
  });

  it("stable references and codes", () => {
    expect(customerReferenceFor("42:7")).toBe(customerReferenceFor("42:7"));
    expect(customerReferenceFor("42:7")).not.toBe(customerReferenceFor("42:8"));
    expect(verificationCode("q-1")).toBe(verificationCode("q-1"));
    expect([...verificationCode("q-1")].length).toBeGreaterThanOrEqual(2);
  });

  it("countdown, and the deadline is the API's expiry (five minutes when unreadable)", () => {
    expect(formatCountdown(272_000)).toBe("4:32");
    expect(formatCountdown(-5)).toBe("0:00");
    const now = Date.parse("2026-01-01T10:00:00Z");
    expect(quoteDeadlineMs("2026-01-01T10:04:00Z", now)).toBe(Date.parse("2026-01-01T10:04:00Z"));
    expect(quoteDeadlineMs("2026-01-01T11:00:00Z", now)).toBe(Date.parse("2026-01-01T11:00:00Z"));
    expect(quoteDeadlineMs("not a date", now)).toBe(now + 300_000);
  });
});

describe("recipient input and labels", () => {
  it("account numbers: digits with spaces or dashes, exactly ten", () => {
    expect(parseNgAccountNumber("0149 200-000")).toEqual({ ok: true, value: "0149200000" });
    expect(parseNgAccountNumber("01492")).toEqual({ ok: false, reason: "length", count: 5 });
    expect(parseNgAccountNumber("01492abc00")).toMatchObject({ ok: false, reason: "not_digits" });
  });

  it("names", () => {
    expect(parseRecipientName("  Ada   Obi ")).toEqual({ ok: true, value: "Ada Obi" });
    expect(parseRecipientName("Ngozi O'Brien-Eze")).toMatchObject({ ok: true });
    expect(parseRecipientName("1")).toEqual({ ok: false });
    expect(parseRecipientName("<b>x</b>")).toEqual({ ok: false });
  });

  it("enquiry failures each have their own way on", () => {
    expect(classifyEnquiryFailure({ kind: "validation", apiMessage: "Invalid account number" })).toEqual({
      kind: "invalid_account",
    });
    expect(classifyEnquiryFailure({ kind: "validation", apiMessage: "Invalid bank code" })).toEqual({
      kind: "invalid_bank",
    });
    expect(classifyEnquiryFailure({ kind: "validation", apiMessage: "Account verification failed" })).toEqual(
      {
        kind: "verification_failed",
      },
    );
    expect(classifyEnquiryFailure({ kind: "rate_limited", retryAfterMs: 12_500 })).toEqual({
      kind: "rate_limited",
      seconds: 13,
    });
    expect(classifyEnquiryFailure({ kind: "timeout" })).toEqual({ kind: "unavailable" });
  });

  it("labels are masked and name the recipient", () => {
    const words = {
      mpesa: "M-Pesa",
      airtel: "Airtel Money",
      paybill: "Paybill",
      till: "Till",
      mtn: "MTN MoMo",
    };
    const ngn = {
      bankAccountNumber: "0149200000",
      bankAccountName: "OLADEJI OLAOLU",
      bankCode: "000013",
      bankName: "GTBANK PLC",
    };
    expect(recipientLabel(describeBeneficiary(ngn, words))).toBe("GTBANK PLC ••0000 · OLADEJI OLAOLU");
    const phone = {
      identifierType: "paytophone" as const,
      identifiers: { phoneNumber: "+254712345678", accountName: "Jane", network: "mpesa" as const },
    };
    expect(recipientLabel(describeBeneficiary(phone, words))).toBe("M-Pesa ••5678 · Jane");
    expect(maskTail("test_account")).toBe("••ount");
    expect(methodOf(ngn)).toEqual({ corridor: "NG", method: "ngn_bank" });
    expect(methodOf(phone)).toEqual({ corridor: "KE", method: "kes_phone" });
    expect(methodOf({ name: "R", bankName: "FNB", bankAccountNumber: "123456" })).toEqual({
      corridor: "ZA",
      method: "zar_bank",
    });
  });
});
