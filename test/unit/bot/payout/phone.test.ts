import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatPhone,
  kenyanNetworkOf,
  normaliseGhanaMtn,
  normaliseKenyanPhone,
} from "#src/bot/payout/phone.js";

describe("Kenyan phone normalisation", () => {
  it.each([
    "0712 345 678",
    "0712345678",
    "712345678",
    "+254 712 345 678",
    "+254712345678",
    "254712345678",
    "00254712345678",
    "0712-345-678",
    "(0712) 345 678",
  ])("%s → +254712345678", (input) => {
    const result = normaliseKenyanPhone(input);
    expect(result).toMatchObject({ ok: true, e164: "+254712345678", network: "mpesa" });
  });

  it("knows the newer 01 prefixes and the networks", () => {
    expect(normaliseKenyanPhone("0110 123 456")).toMatchObject({
      ok: true,
      e164: "+254110123456",
      network: "mpesa",
    });
    expect(normaliseKenyanPhone("0733 123456")).toMatchObject({ ok: true, network: "airtel" });
    expect(normaliseKenyanPhone("0100 123456")).toMatchObject({ ok: true, network: "airtel" });
    expect(normaliseKenyanPhone("0771 123456")).toMatchObject({ ok: true, network: "telkom" });
    expect(normaliseKenyanPhone("+254790000000")).toMatchObject({ ok: true, network: "mpesa" });
    expect(kenyanNetworkOf("722000000")).toBe("mpesa");
    expect(kenyanNetworkOf("785000000")).toBe("airtel");
  });

  it("refuses what is not a Kenyan mobile number", () => {
    expect(normaliseKenyanPhone("hello")).toEqual({ ok: false, reason: "invalid" });
    expect(normaliseKenyanPhone("0712 345")).toEqual({ ok: false, reason: "invalid" });
    expect(normaliseKenyanPhone("0712 345 678 9")).toEqual({ ok: false, reason: "invalid" });
    expect(normaliseKenyanPhone("020 1234567")).toEqual({ ok: false, reason: "invalid" });
    expect(normaliseKenyanPhone("+234 803 123 4567")).toEqual({ ok: false, reason: "foreign" });
  });

  it("any way of writing a valid 07xx number gives the same E.164", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9_999_999 }).map((n) => `71${String(n).padStart(7, "0")}`),
        fc.constantFrom("0", "", "+254", "254", "+254 ", "00254"),
        fc.constantFrom("", " ", "-"),
        (national, prefix, separator) => {
          const written = `${prefix}${national.slice(0, 3)}${separator}${national.slice(3, 6)}${separator}${national.slice(6)}`;
          const result = normaliseKenyanPhone(written);
          return result.ok && result.e164 === `+254${national}`;
        },
      ),
    );
  });

  it("formats for display", () => {
    expect(formatPhone("+254712345678")).toBe("+254 712 345678");
  });
});

describe("Ghana MTN normalisation", () => {
  it.each(["024 123 4567", "0241234567", "+233 24 123 4567", "233241234567", "0541234567", "0591234567"])(
    "%s is MTN",
    (input) => {
      expect(normaliseGhanaMtn(input)).toMatchObject({ ok: true, network: "mtn" });
    },
  );

  it("normalises to +233 and nine digits", () => {
    expect(normaliseGhanaMtn("024 123 4567")).toMatchObject({ e164: "+233241234567" });
  });

  it("refuses other networks with the network named", () => {
    expect(normaliseGhanaMtn("020 123 4567")).toEqual({ ok: false, reason: "not_mtn", network: "telecel" });
    expect(normaliseGhanaMtn("0501234567")).toEqual({ ok: false, reason: "not_mtn", network: "telecel" });
    expect(normaliseGhanaMtn("0271234567")).toEqual({ ok: false, reason: "not_mtn", network: "airteltigo" });
  });

  it("refuses foreign and malformed numbers", () => {
    expect(normaliseGhanaMtn("+254712345678")).toEqual({ ok: false, reason: "foreign" });
    expect(normaliseGhanaMtn("024 123")).toEqual({ ok: false, reason: "invalid" });
    expect(normaliseGhanaMtn("not a number")).toEqual({ ok: false, reason: "invalid" });
  });

  it("accepts the staging test number only outside production", () => {
    expect(normaliseGhanaMtn("+233999992800")).toEqual({ ok: false, reason: "invalid" });
    expect(normaliseGhanaMtn("+233999992800", { allowTestNumbers: true })).toMatchObject({
      ok: true,
      e164: "+233999992800",
    });
  });
});
