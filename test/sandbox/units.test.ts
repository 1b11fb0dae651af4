import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, hex, utf8 } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amountPrefix, encodeInvoice, SANDBOX_NODE_PUBKEY } from "#src/standins/sandbox/bolt11.js";
import { DEFAULT_PRICES, mergePrices, Pricing } from "#src/standins/sandbox/pricing.js";
import { formatMajor } from "#src/standins/sandbox/units.js";
import { decodeInvoice } from "./harness.ts";

/** Recover the signer of a BOLT11 invoice (light-bolt11-decoder does not check signatures). */
function recoverPayee(invoice: string): string {
  const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, false);
  const data = words.slice(0, -104);
  const signature = bech32.fromWords(words.slice(-104));
  // Re-pack the data words into bytes with zero padding, as BOLT11 signs them.
  const bits = data.map((word) => word.toString(2).padStart(5, "0")).join("");
  const padded = bits.padEnd(Math.ceil(bits.length / 8) * 8, "0");
  const bytes = Uint8Array.from(padded.match(/.{8}/g) ?? [], (byte) => Number.parseInt(byte, 2));
  const digest = sha256(new Uint8Array([...utf8.decode(prefix), ...bytes]));
  const recovered = new Uint8Array([signature[64] ?? 0, ...signature.subarray(0, 64)]);
  return hex.encode(secp256k1.recoverPublicKey(recovered, digest, { prehash: false }));
}

describe("bolt11 encoder", () => {
  const paymentHash = sha256(utf8.decode("preimage"));
  const paymentSecret = sha256(utf8.decode("secret"));

  it("encodes the amount in the shortest exact unit", () => {
    expect(amountPrefix(6016)).toBe("60160n");
    expect(amountPrefix(10_000)).toBe("100u");
    expect(amountPrefix(100_000)).toBe("1m");
    expect(amountPrefix(100_000_000)).toBe("1");
    expect(() => amountPrefix(0)).toThrow();
  });

  it("produces signet invoices that decode to the amount, hash, expiry and signer", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_100_000_000_000 }),
        fc.integer({ min: 60, max: 86_400 }),
        (sats, expiry) => {
          const invoice = encodeInvoice({
            amountSats: sats,
            paymentHash,
            paymentSecret,
            description: "test",
            timestamp: 1_760_000_000,
            expirySeconds: expiry,
          });
          expect(invoice.startsWith("lntbs")).toBe(true);
          const decoded = decodeInvoice(invoice);
          expect(decoded.amountSats).toBe(sats);
          expect(decoded.paymentHash).toBe(hex.encode(paymentHash));
          expect(decoded.network).toBe("tbs");
          expect(decoded.expiry).toBe(expiry);
          expect(decoded.timestamp).toBe(1_760_000_000);
          expect(recoverPayee(invoice)).toBe(hex.encode(SANDBOX_NODE_PUBKEY));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("pricing", () => {
  const pricing = new Pricing(DEFAULT_PRICES);

  it("prices the NGN Lightning payout by hand-checkable integers", () => {
    // 150 kobo per sat, 0.30 % spread, 1 % fee: ceil(1e6 / 149.55) = 6687; fee ceil(66.87) = 67.
    expect(
      pricing.quote({
        source: "BTC",
        target: "NGN",
        corridor: "BTC-NGN",
        amount: 1_000_000n,
        amountIn: "target",
        networkFee: 0n,
      }),
    ).toEqual({
      amountInSource: 6754n,
      feesInSource: 67n,
      amountInTarget: 1_000_000n,
      feesInTarget: 10_050n,
    });
  });

  it("takes a 0.5 % fee out of a sats amount for KES (the notes' 498 on 100000)", () => {
    const math = pricing.quote({
      source: "BTC",
      target: "KES",
      corridor: "BTC-KES",
      amount: 100_000n,
      amountIn: "source",
      networkFee: 0n,
    });
    expect(math.feesInSource).toBe(498n);
    expect(math.amountInSource).toBe(100_000n);
    expect(math.amountInTarget).toBe((100_000n - 498n) * 13n);
  });

  it("adds the on-chain network fee before converting NGN→BTC", () => {
    const math = pricing.quote({
      source: "NGN",
      target: "BTC",
      corridor: "NGN-BTC",
      amount: 10_000n,
      amountIn: "target",
      networkFee: 600n,
    });
    expect(math).toEqual({
      amountInSource: 1_598_745n,
      feesInSource: 8_745n,
      amountInTarget: 10_000n,
      feesInTarget: 58n,
    });
  });

  it("never lets a target-side quote deliver less when re-quoted from its own total", () => {
    const corridors = [
      ["BTC", "NGN", "BTC-NGN"],
      ["BTC", "KES", "BTC-KES"],
      ["BTC", "ZAR", "BTC-ZAR"],
      ["BTC", "GHS", "BTC-GHS"],
      ["NGN", "BTC", "NGN-BTC"],
      ["NGN", "KES", "NGN-KES"],
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...corridors),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        ([source, target, corridor], amount) => {
          const forward = pricing.quote({
            source,
            target,
            corridor,
            amount,
            amountIn: "target",
            networkFee: 0n,
          });
          expect(forward.amountInTarget).toBe(amount);
          expect(forward.feesInSource >= 0n).toBe(true);
          const back = pricing.quote({
            source,
            target,
            corridor,
            amount: forward.amountInSource,
            amountIn: "source",
            networkFee: 0n,
          });
          expect(back.amountInSource).toBe(forward.amountInSource);
          expect(back.amountInTarget >= amount).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("rejects nonsense price models", () => {
    expect(() => mergePrices(DEFAULT_PRICES, { btcUsd: 0 })).toThrow(/btcUsd/);
    expect(() => mergePrices(DEFAULT_PRICES, { feeBps: { "BTC-NGN": 1.5 } })).toThrow(/feeBps/);
    expect(mergePrices(DEFAULT_PRICES, { usdRates: { KES: 129.5 } }).usdRates).toEqual({
      ...DEFAULT_PRICES.usdRates,
      KES: 129.5,
    });
  });

  it("formats major units without floats", () => {
    expect(formatMajor(1_000_000, "NGN")).toBe("10000.00");
    expect(formatMajor(5, "KES")).toBe("0.05");
    expect(formatMajor(6016, "BTC")).toBe("0.00006016");
    expect(formatMajor(123_456_789_012_345_678n, "NGN")).toBe("1234567890123456.78");
  });
});
