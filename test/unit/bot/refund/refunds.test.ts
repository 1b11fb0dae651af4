import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRefundInvoice, resolveDestination } from "#src/bot/refund/destination.js";
import type { LightningAddress } from "#src/bot/refund/lnurl.js";
import { LnurlError } from "#src/bot/refund/lnurl.js";
import { type DecodedInvoice, decodeLightningInvoice } from "#src/bot/rules/treasury.js";
import { ConfigError, loadConfig, parseSupportContact } from "#src/config.js";
import { silentLogger } from "#src/log/logger.js";
import { refundableAmount, refundableSats } from "#src/orders/index.js";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import { keys, type OrderRecord, RefundRepository } from "#src/store/index.js";
import { freshRedis } from "../../../support/redis.ts";

const NOW = 1_800_000_000_000;

function invoice(amountSats: number | null, options: { network?: string; expirySeconds?: number } = {}) {
  return encodeInvoice({
    amountSats,
    paymentHash: randomBytes(32),
    paymentSecret: randomBytes(32),
    description: "refund",
    timestamp: Math.floor(NOW / 1000),
    expirySeconds: options.expirySeconds ?? 3600,
    ...(options.network ? { network: options.network } : {}),
  });
}

describe("refund invoice checks", () => {
  const expected = { amountSats: 6_754, network: "signet", now: NOW };
  const check = (text: string) => checkRefundInvoice(decodeLightningInvoice(text)!, expected);

  it("accepts a signet invoice for exactly the amount that stays payable", () => {
    expect(check(invoice(6_754))).toBeUndefined();
  });

  it("refuses another network, no amount, another amount, a fraction of a sat more, and a short life", () => {
    expect(check(invoice(6_754, { network: "bc" }))).toBe("wrong_network");
    expect(
      checkRefundInvoice(decodeLightningInvoice(invoice(6_754, { network: "bc" }))!, {
        ...expected,
        network: "mainnet",
      }),
    ).toBeUndefined();
    expect(check(invoice(null))).toBe("amountless");
    expect(check(invoice(6_753))).toBe("wrong_amount");
    expect(check(invoice(6_755))).toBe("wrong_amount");
    const decoded = decodeLightningInvoice(invoice(6_754))!;
    const withMsat: DecodedInvoice = { ...decoded, amountMsat: 6_754_500n };
    expect(checkRefundInvoice(withMsat, expected)).toBe("wrong_amount");
    expect(check(invoice(6_754, { expirySeconds: 60 }))).toBe("expired");
  });
});

describe("what the user sends for a refund", () => {
  const deps = {
    config: loadConfig({}),
    logger: silentLogger(),
  };
  const expected = { amountSats: 5_000, now: NOW };

  it("an invoice is shortened for display, never shown whole", async () => {
    const text = invoice(5_000);
    const result = await resolveDestination(deps, text, expected, () => {
      throw new Error("no lookup for an invoice");
    });
    expect(result).toMatchObject({ ok: true, destinationKind: "invoice", invoice: text });
    if (!result.ok) return;
    expect(result.destination).not.toBe(text);
    expect(result.destination.length).toBeLessThan(30);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result); // plain data for the conversation log
  });

  it("an address asks its service for the exact amount; the service's failures are the address's", async () => {
    const asked: Array<[LightningAddress, bigint]> = [];
    const ok = await resolveDestination(deps, "Ada@Wallet.example", expected, async (address, msat) => {
      asked.push([address, msat]);
      return { invoice: invoice(5_000), decoded: decodeLightningInvoice(invoice(5_000))! };
    });
    expect(asked).toEqual([[{ user: "ada", domain: "wallet.example" }, 5_000_000n]]);
    expect(ok).toMatchObject({ ok: true, destinationKind: "address", destination: "ada@wallet.example" });
    const wrong = await resolveDestination(deps, "ada@wallet.example", expected, async () => ({
      invoice: invoice(4_000),
      decoded: decodeLightningInvoice(invoice(4_000))!,
    }));
    expect(wrong).toEqual({ ok: false, problem: "address_failed" });
    const range = await resolveDestination(deps, "ada@wallet.example", expected, async () => {
      throw new LnurlError("amount_out_of_range");
    });
    expect(range).toEqual({ ok: false, problem: "address_amount" });
  });

  it("anything else, and anything too long, is not recognised", async () => {
    for (const text of ["hello", "ada@", "x".repeat(3_000), `${invoice(5_000)}x`]) {
      expect(await resolveDestination(deps, text, expected)).toEqual({
        ok: false,
        problem: "not_recognised",
      });
    }
  });
});

describe("which orders can be refunded", () => {
  const order = (patch: Partial<OrderRecord>) =>
    ({
      kind: "payout",
      stage: "failed",
      failureReason: "payout_failed",
      pay: { amount: 6_754, currency: "BTCSAT" },
      ...patch,
    }) as OrderRecord;

  it("a payout that failed after the payment arrived: everything the user paid", () => {
    expect(refundableSats(order({}))).toBe(6_754);
    expect(refundableSats(order({ failureReason: "payment_failed" }))).toBeUndefined();
    expect(refundableSats(order({ failureReason: "order_failed" }))).toBeUndefined();
    expect(refundableSats(order({ stage: "completed" }))).toBeUndefined();
    expect(refundableSats(order({ kind: "buy", pay: { amount: 100, currency: "NGNKOBO" } }))).toBeUndefined();
  });

  it("a naira-funded payout that failed after the naira arrived: its kobo, in naira", () => {
    const naira = (patch: Partial<OrderRecord>) =>
      order({ pay: { amount: 1_740_982, currency: "NGNKOBO" }, ...patch });
    expect(refundableAmount(naira({}))).toEqual({ amount: 1_740_982, currency: "NGNKOBO" });
    expect(refundableSats(naira({}))).toBeUndefined();
    expect(refundableAmount(naira({ failureReason: "payment_failed" }))).toBeUndefined();
    expect(refundableAmount(naira({ stage: "expired" }))).toBeUndefined();
    expect(refundableAmount(order({}))).toEqual({ amount: 6_754, currency: "BTCSAT" });
  });
});

describe("the refund gate in Redis", () => {
  let redis: Redis;
  let refunds: RefundRepository;
  beforeAll(async () => {
    redis = await freshRedis();
    refunds = new RefundRepository(redis);
  });
  afterAll(async () => {
    await redis?.quit();
  });

  const input = (orderId: string, state: "paying" | "awaiting_approval" = "paying") => ({
    orderId,
    state,
    userId: 1,
    chatId: 1,
    amountSats: 6_754,
    destinationKind: "invoice" as const,
    destination: "lntbs…",
    invoice: "lntbs1",
    paymentHash: `hash-${orderId}`,
    invoiceExpiresAt: NOW,
    now: NOW,
  });

  it("opens one refund per order, even when twenty callers race", async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => refunds.open(input("o-1"))));
    expect(outcomes.filter((outcome) => outcome === "opened")).toHaveLength(1);
    expect(new Set(outcomes.filter((outcome) => outcome !== "opened"))).toEqual(new Set(["paying"]));
    expect((await refunds.listOpen()).map((refund) => refund.orderId)).toEqual(["o-1"]);
  });

  it("moves only from the expected state, once; paid and uncertain block a new refund, failed allows one", async () => {
    const moves = await Promise.all([
      refunds.move("o-1", ["paying"], "sent", { transactionId: "tx-1" }),
      refunds.move("o-1", ["paying"], "failed", { error: "x" }),
    ]);
    expect(moves.sort()).toEqual(["ok", "sent"]);
    expect(await refunds.move("o-1", ["sent"], "paid")).toBe("ok");
    expect(await refunds.open(input("o-1"))).toBe("paid");
    expect(await refunds.listOpen()).toEqual([]);

    await refunds.open(input("o-2"));
    expect(await refunds.move("o-2", ["paying"], "uncertain", { error: "timeout" })).toBe("ok");
    expect(await refunds.open(input("o-2"))).toBe("uncertain");
    expect((await refunds.listOpen()).map((refund) => refund.orderId)).toEqual(["o-2"]);

    await refunds.open(input("o-3"));
    await refunds.move("o-3", ["paying"], "failed", { error: "Invoice expired" });
    expect(await refunds.open(input("o-3"))).toBe("opened");
    expect(await refunds.get("o-3")).toMatchObject({ state: "paying", attempt: 2 });
    expect((await refunds.get("o-3"))?.error).toBeUndefined();
    expect(await refunds.move("missing", ["paying"], "sent")).toBe("missing");
  });

  it("finds a refund by its withdrawal's transaction id or its own invoice's payment hash", async () => {
    await refunds.linkTransaction("tx-3", "o-3");
    expect((await refunds.findByTransaction("tx-3"))?.orderId).toBe("o-3");
    expect(await refunds.findByTransaction("nothing")).toBeUndefined();
    expect((await refunds.findByHash("hash-o-3"))?.orderId).toBe("o-3");
    expect(await refunds.findByHash("hash-o-9")).toBeUndefined();
  });

  it("refuses an invoice whose payment hash is an order's or another order's refund's", async () => {
    await redis.set(keys.orderByHash("hash-of-an-order"), "o-unpaid");
    expect(await refunds.open({ ...input("o-4"), paymentHash: "hash-of-an-order" })).toBe("hash_known");
    expect(await refunds.open({ ...input("o-4"), paymentHash: "hash-o-3" })).toBe("hash_known");
    expect(await refunds.get("o-4")).toBeUndefined();
    expect(await refunds.hashKnown("hash-of-an-order", "o-4")).toBe(true);
    expect(await refunds.hashKnown("hash-o-3", "o-4")).toBe(true);
    // The same order may try its own invoice again after a failure: the hash still settles that refund alone.
    expect(await refunds.hashKnown("hash-o-3", "o-3")).toBe(false);
    expect(await refunds.open(input("o-4"))).toBe("opened");
  });

  it("a bank refund opens once without a payment hash and keeps its beneficiary exactly", async () => {
    const beneficiary = {
      bankAccountNumber: "0149200000",
      bankAccountName: "OLADEJI OLAOLU\u00a0",
      bankCode: "000013",
      bankName: "GTBANK PLC",
    };
    const bank = {
      ...input("n-1"),
      currency: "NGNKOBO" as const,
      destinationKind: "bank" as const,
      destination: "GTBANK PLC ••••0000",
      invoice: "",
      invoiceExpiresAt: 0,
      paymentHash: undefined,
      beneficiary,
    };
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => refunds.open(bank)));
    expect(outcomes.filter((outcome) => outcome === "opened")).toHaveLength(1);
    expect(await refunds.get("n-1")).toMatchObject({
      currency: "NGNKOBO",
      destinationKind: "bank",
      beneficiary,
    });
    expect(await redis.keys("*hash*")).not.toContainEqual(expect.stringContaining("n-1"));
    await refunds.move("n-1", ["paying"], "failed", { error: "Name Mismatch" });
    expect(await refunds.open(bank)).toBe("opened");
    expect(await refunds.get("n-1")).toMatchObject({ state: "paying", attempt: 2 });
  });
});

describe("SUPPORT_CONTACT and the refund settings", () => {
  it("takes a @username, a t.me link, an email address or an https URL", () => {
    expect(parseSupportContact("@payouts_help")).toEqual({
      label: "@payouts_help",
      url: "https://t.me/payouts_help",
    });
    expect(parseSupportContact("https://t.me/payouts_help")).toMatchObject({
      url: "https://t.me/payouts_help",
    });
    expect(parseSupportContact("help@payouts.example")).toEqual({ label: "help@payouts.example" });
    expect(parseSupportContact("https://payouts.example/help")).toMatchObject({
      url: "https://payouts.example/help",
    });
    for (const bad of [
      "payouts",
      "@ab",
      "javascript:alert(1)",
      "tg://resolve?domain=x",
      "ftp://x.example",
      "https://x.example/?a=1&b=2",
      "<b>@help</b>",
    ]) {
      expect(parseSupportContact(bad)).toBeUndefined();
    }
    expect(loadConfig({ SUPPORT_CONTACT: "@payouts_help" }).support.contact?.label).toBe("@payouts_help");
    expect(loadConfig({}).support.contact).toBeUndefined();
    expect(() => loadConfig({ SUPPORT_CONTACT: "call us" })).toThrow(ConfigError);
  });

  it("has a threshold default, and no setting that loosens Lightning-address lookups", () => {
    const defaults = { approvalThresholdSats: 100_000, approvalThresholdKobo: 5_000_000 };
    expect(loadConfig({}).refunds).toEqual(defaults);
    expect(loadConfig({ LNURL_ALLOW_HTTP_LOOPBACK: "true" }).refunds).toEqual(defaults);
    expect(loadConfig({ NGN_REFUND_APPROVAL_THRESHOLD_KOBO: "0" }).refunds.approvalThresholdKobo).toBe(0);
    expect(() => loadConfig({ NGN_REFUND_APPROVAL_THRESHOLD_KOBO: "-1" })).toThrow(ConfigError);
    expect(loadConfig({ REFUND_APPROVAL_THRESHOLD_SATS: "0" }).refunds.approvalThresholdSats).toBe(0);
    expect(() => loadConfig({ REFUND_APPROVAL_THRESHOLD_SATS: "-1" })).toThrow(ConfigError);
  });
});
