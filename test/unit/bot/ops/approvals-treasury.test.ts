import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseLowBalanceThresholds } from "#src/bot/ops/alerts/render.js";
import { decodeLightningInvoice, invoiceFitsNetwork } from "#src/bot/rules/treasury.js";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";

/** What the treasury shows the approver: the invoice decoded (amount, expiry, network). */
function invoice(amountSats: number | null, network = "tbs", timestamp = 1_700_000_000, expirySeconds = 900) {
  return encodeInvoice({
    amountSats,
    paymentHash: randomBytes(32),
    paymentSecret: randomBytes(32),
    description: "treasury test",
    timestamp,
    expirySeconds,
    network,
  });
}

describe("Lightning invoices for /withdraw_btc", () => {
  it("decodes amount, expiry, hash and network", () => {
    const text = invoice(25_000);
    const decoded = decodeLightningInvoice(text);
    expect(decoded).toMatchObject({
      amountSats: 25_000,
      expiresAt: (1_700_000_000 + 900) * 1000,
      network: "tbs",
      description: "treasury test",
    });
    expect(decoded?.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(invoiceFitsNetwork(decoded!, "signet")).toBe(true);
    expect(invoiceFitsNetwork(decoded!, "mainnet")).toBe(false);
  });

  it("accepts a lightning: prefix and upper case (QR codes)", () => {
    const text = invoice(1_000);
    expect(decodeLightningInvoice(`lightning:${text.toUpperCase()}`)?.amountSats).toBe(1_000);
  });

  it("reports amountless invoices as such and tells mainnet from signet", () => {
    expect(decodeLightningInvoice(invoice(null))?.amountSats).toBeNull();
    const mainnet = decodeLightningInvoice(invoice(5_000, "bc"));
    expect(mainnet?.network).toBe("bc");
    expect(invoiceFitsNetwork(mainnet!, "mainnet")).toBe(true);
    expect(invoiceFitsNetwork(mainnet!, "signet")).toBe(false);
  });

  it("refuses what is not an invoice (a corrupted checksum included)", () => {
    expect(decodeLightningInvoice("hello")).toBeUndefined();
    expect(decodeLightningInvoice("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx")).toBeUndefined();
    const text = invoice(2_000);
    const corrupted = `${text.slice(0, -1)}${text.endsWith("q") ? "p" : "q"}`;
    expect(decodeLightningInvoice(corrupted)).toBeUndefined();
  });
});

describe("low-balance thresholds", () => {
  it("parses CUR:minor pairs and reports bad entries instead of guessing", () => {
    const { thresholds, problems } = parseLowBalanceThresholds("NGN:50000000, btc:100000;KES:abc ZAR:1.5");
    expect([...thresholds]).toEqual([
      ["NGN", 50_000_000],
      ["BTC", 100_000],
    ]);
    expect(problems).toEqual(["KES:abc", "ZAR:1.5"]);
    expect(parseLowBalanceThresholds(undefined).thresholds.size).toBe(0);
  });
});
