import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quoteSchema } from "#src/api/schemas/quote.js";
import { type FiatCurrencyCode, formatMoney, parseAmount } from "#src/money/index.js";
import {
  fiatAtRate,
  purchaseBreakdown,
  type QuoteSide,
  quoteAmounts,
  quoteBreakdown,
  SATS_PER_BTC,
} from "#src/orders/quote-math.js";

/** Every corridor the bot quotes: four payouts (sats → local money) and the purchase (naira → sats). */
const CORRIDORS: ReadonlyArray<{
  name: string;
  source: "BTCSAT" | "NGNKOBO";
  target: "BTCSAT" | FiatCurrencyCode;
  side: QuoteSide;
  /** Mid-market price of 1 BTC in the fiat side's minor units (order of magnitude of the real ones). */
  midPerBtc: [number, number];
}> = [
  { name: "NG", source: "BTCSAT", target: "NGNKOBO", side: "pay_btc", midPerBtc: [5e9, 3e10] },
  { name: "KE", source: "BTCSAT", target: "KESCENT", side: "pay_btc", midPerBtc: [5e8, 3e9] },
  { name: "ZA", source: "BTCSAT", target: "ZARCENT", side: "pay_btc", midPerBtc: [5e7, 5e8] },
  { name: "GH", source: "BTCSAT", target: "GHSPESEWA", side: "pay_btc", midPerBtc: [3e7, 3e8] },
  { name: "buy", source: "NGNKOBO", target: "BTCSAT", side: "receive_btc", midPerBtc: [5e9, 3e10] },
];

type FeeShape = "none" | "zero" | "source" | "target" | "both" | "source_and_internal";

/** A quote as the API might send it: numbers or numeric strings, fees in any of the documented shapes. */
const rawQuote = fc
  .record({
    corridor: fc.constantFrom(...CORRIDORS),
    midFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    // What is exchanged on the bitcoin side: 1,000 sats to 0.2 BTC (the bot's ceiling).
    sats: fc.integer({ min: 1_000, max: 20_000_000 }),
    spreadBp: fc.integer({ min: 0, max: 150 }),
    feeBp: fc.integer({ min: 0, max: 300 }),
    feeShape: fc.constantFrom<FeeShape>("none", "zero", "source", "target", "both", "source_and_internal"),
    internalFee: fc.integer({ min: 0, max: 500 }),
    asString: fc.record({
      amount: fc.boolean(),
      target: fc.boolean(),
      fee: fc.boolean(),
      total: fc.constantFrom("absent", "number", "string"),
    }),
  })
  .map((g) => {
    const { corridor } = g;
    const mid = Math.round(
      corridor.midPerBtc[0] + g.midFraction * (corridor.midPerBtc[1] - corridor.midPerBtc[0]),
    );
    // The fiat equivalent of the sats at the user's rate (mid minus the spread).
    const fiat = Math.max(1, Math.floor((g.sats * mid * (1 - g.spreadBp / 10_000)) / 1e8));
    let pay: number;
    let receive: number;
    let feeSource: number;
    let feeTarget: number;
    if (corridor.side === "pay_btc") {
      feeSource = Math.floor((g.sats * g.feeBp) / 10_000);
      feeTarget = Math.floor((fiat * g.feeBp) / 10_000);
      pay = g.sats + feeSource;
      receive = fiat;
    } else {
      feeSource = Math.floor((fiat * g.feeBp) / 10_000);
      feeTarget = Math.floor((g.sats * g.feeBp) / 10_000);
      pay = fiat + feeSource;
      receive = g.sats;
    }
    const value = (n: number, asString: boolean) => (asString ? String(n) : n);
    const json: Record<string, unknown> = {
      id: "q-1",
      exchangeRate: mid / 100,
      sourceCurrency: corridor.source,
      targetCurrency: corridor.target,
      amountInSourceCurrency: value(pay, g.asString.amount),
      amountInTargetCurrency: value(receive, g.asString.target),
      expiry: "2026-01-01T00:05:00.000Z",
      invoice: "lnbc1",
    };
    if (g.asString.total !== "absent")
      json.totalAmountInSourceCurrency = value(pay, g.asString.total === "string");
    switch (g.feeShape) {
      case "none":
        break;
      case "zero":
        json.transactionFeesInSourceCurrency = value(0, g.asString.fee);
        json.transactionFeesInTargetCurrency = value(0, g.asString.fee);
        break;
      case "source":
        json.transactionFeesInSourceCurrency = value(feeSource, g.asString.fee);
        break;
      case "target":
        json.transactionFeesInTargetCurrency = value(feeTarget, g.asString.fee);
        break;
      case "both":
        json.transactionFeesInSourceCurrency = value(feeSource, g.asString.fee);
        json.transactionFeesInTargetCurrency = value(feeTarget, g.asString.fee);
        break;
      case "source_and_internal":
        json.transactionFeesInSourceCurrency = value(feeSource, g.asString.fee);
        json.customerInternalFee = value(Math.min(g.internalFee, pay - feeSource), g.asString.fee);
        break;
    }
    return { corridor, json, pay, receive };
  });

function satsAndFiat(side: QuoteSide, exchanged: number, receive: number) {
  return side === "pay_btc" ? { sats: exchanged, fiat: receive } : { sats: receive, fiat: exchanged };
}

describe("quote arithmetic (every corridor, amount range and fee shape)", () => {
  it("the breakdown lines sum exactly to what is paid, and the shown rate reproduces the amounts", () => {
    fc.assert(
      fc.property(rawQuote, ({ corridor, json, pay, receive }) => {
        const quote = quoteSchema.parse(json);
        const amounts = quoteAmounts(quote);
        expect(amounts.pay).toBe(pay);
        expect(amounts.receive).toBe(receive);
        const b = quoteBreakdown(amounts, corridor.side);
        expect(b.exchanged + b.fee).toBe(pay);
        expect(b.fee).toBeGreaterThanOrEqual(0);
        expect(b.exchanged).toBeGreaterThan(0);
        expect(b.ratePerBtc).toBeDefined();
        const { sats, fiat } = satsAndFiat(corridor.side, b.exchanged, b.receive);
        // Exact bound: |sats × rate / 10^8 − fiat| ≤ sats / (2 × 10^8), checked in integers.
        const error = BigInt(sats) * BigInt(b.ratePerBtc!) - BigInt(fiat) * SATS_PER_BTC;
        const bound = BigInt(sats) / 2n + 1n;
        expect(error <= bound && -error <= bound).toBe(true);
        // Below 1 BTC the shown rate gives the quote's fiat amount back exactly.
        expect(fiatAtRate(sats, b.ratePerBtc!)).toBe(fiat);
      }),
      { numRuns: 3_000 },
    );
  });

  it("the formatted lines, read back, still sum to the formatted total", () => {
    fc.assert(
      fc.property(rawQuote, fc.constantFrom("en", "fr", "sw", "zu"), ({ corridor, json }, locale) => {
        const b = quoteBreakdown(quoteAmounts(quoteSchema.parse(json)), corridor.side);
        const read = (minor: number) => {
          if (minor === 0) return 0; // "0 sats": the parser refuses zero amounts by design
          const parsed = parseAmount(formatMoney(minor, corridor.source, locale), {
            currency: corridor.source,
            locale,
          });
          if (!parsed.ok)
            throw new Error(`could not read back ${formatMoney(minor, corridor.source, locale)}`);
          return parsed.minor;
        };
        expect(read(b.exchanged) + read(b.fee)).toBe(read(b.pay));
      }),
      { numRuns: 500 },
    );
  });

  it("reconciles the service's published samples", () => {
    // BTC→NGN over Lightning: 6016 sats, 59 of them fee, ₦10,000 arrives.
    const ng = quoteBreakdown(
      quoteAmounts({
        amountInSourceCurrency: 6016,
        totalAmountInSourceCurrency: 6016,
        amountInTargetCurrency: 1_000_000,
        transactionFeesInSourceCurrency: 59,
        transactionFeesInTargetCurrency: 10_000,
        customerInternalFee: 0,
      }),
      "pay_btc",
    );
    expect(ng).toEqual({
      pay: 6016,
      exchanged: 5957,
      fee: 59,
      receive: 1_000_000,
      ratePerBtc: 16_786_973_309,
    });
    // NGN→BTC over bank transfer: ₦8,445.40 with ₦46.24 fee buys 5,000 sats.
    const buy = quoteBreakdown(
      quoteAmounts({
        amountInSourceCurrency: 844_540,
        amountInTargetCurrency: 5000,
        transactionFeesInSourceCurrency: 4624,
        transactionFeesInTargetCurrency: 25,
      }),
      "receive_btc",
    );
    expect(buy).toEqual({
      pay: 844_540,
      exchanged: 839_916,
      fee: 4624,
      receive: 5000,
      ratePerBtc: 16_798_320_000,
    });
    // The card the issue describes: ₦5,000 for 3,378 sats with a 34-sat fee.
    const issue = quoteBreakdown({ pay: 3378, fee: 34, receive: 500_000 }, "pay_btc");
    expect(issue.exchanged + issue.fee).toBe(3378);
    expect(fiatAtRate(issue.exchanged, issue.ratePerBtc!)).toBe(500_000);
  });

  it("a fee only in the target currency is converted at the quote's all-in rate", () => {
    const amounts = quoteAmounts({
      amountInSourceCurrency: 100_000,
      amountInTargetCurrency: 1_460_784,
      transactionFeesInTargetCurrency: 7340,
    });
    // 7340 / (1,460,784 + 7340) of 100,000 sats = 499.96 → 500.
    expect(amounts).toEqual({ pay: 100_000, fee: 500, receive: 1_460_784 });
  });

  it("never shows a fee above what is paid, nor a rate for nothing exchanged", () => {
    expect(quoteBreakdown({ pay: 100, fee: 500, receive: 10 }, "pay_btc")).toEqual({
      pay: 100,
      exchanged: 0,
      fee: 100,
      receive: 10,
    });
  });
});

describe("a purchase: exchange rate, margin and network fee, each as what it is", () => {
  /** A bank-transfer purchase as the API prices it: naira in, a fee, sats bought at a spread, the network fee out. */
  const purchase = fc
    .record({
      midPerBtc: fc.integer({ min: 5_000_000_000, max: 30_000_000_000 }),
      payKobo: fc.integer({ min: 900_000, max: 3_000_000_000 }),
      feeBp: fc.integer({ min: 0, max: 300 }),
      spreadBp: fc.integer({ min: 0, max: 150 }),
      networkFee: fc.integer({ min: 0, max: 5_000 }),
    })
    .map((g) => {
      const fee = Math.ceil((g.payKobo * g.feeBp) / (10_000 + g.feeBp));
      const bought = Math.floor(((g.payKobo - fee) * 1e8 * (1 - g.spreadBp / 10_000)) / g.midPerBtc);
      return { ...g, fee, receive: bought - g.networkFee };
    })
    .filter((g) => g.receive > 0);

  it("sums to what is paid (kobo) and to what arrives (sats), at the API's rate, the margin holding the fee", () => {
    fc.assert(
      fc.property(purchase, (g) => {
        const b = purchaseBreakdown(
          { pay: g.payKobo, fee: g.fee, receive: g.receive },
          g.networkFee,
          g.midPerBtc,
        );
        expect(b.exchanged + b.margin).toBe(g.payKobo);
        expect(b.bought - b.networkFee).toBe(g.receive);
        expect(b.networkFee).toBe(g.networkFee);
        expect(b.ratePerBtc).toBe(g.midPerBtc);
        expect(fiatAtRate(b.bought, b.ratePerBtc!)).toBe(b.exchanged);
        expect(b.margin).toBeGreaterThanOrEqual(g.fee);
      }),
      { numRuns: 500 },
    );
  });

  it("without the API's rate, or with one the quote contradicts, shows the quote's own rate and its fee", () => {
    // ₦10,000 with a ₦54.70 fee bought 6,630 sats; 600 went to the network.
    const amounts = { pay: 1_000_000, fee: 5_470, receive: 6_030 };
    const own = purchaseBreakdown(amounts, 600);
    expect(own).toEqual({
      pay: 1_000_000,
      exchanged: 994_530,
      margin: 5_470,
      bought: 6_630,
      networkFee: 600,
      receive: 6_030,
      ratePerBtc: 15_000_452_489,
    });
    expect(fiatAtRate(own.bought, own.ratePerBtc!)).toBe(own.exchanged);
    // A price that moved up since: at it the sats would cost more than what is paid less the fee.
    expect(purchaseBreakdown(amounts, 600, 15_100_000_000)).toEqual(own);
    // At the API's ₦150,000,000 the 6,630 sats cost ₦9,945.00; the margin is the rest.
    expect(purchaseBreakdown(amounts, 600, 15_000_000_000)).toMatchObject({
      exchanged: 994_500,
      margin: 5_500,
    });
  });
});
