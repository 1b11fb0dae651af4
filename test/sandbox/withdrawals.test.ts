import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import { NO_ROUTE_DESCRIPTION } from "#src/standins/sandbox/domain/withdrawals.js";
import {
  type Api,
  NGN_BENEFICIARY,
  ngnPayoutQuote,
  openSandbox,
  type Receiver,
  startReceiver,
  waitForWebhooks,
} from "./harness.ts";

/** POST /withdraw (NGN) and POST /withdraw/btc (Lightning). */

let api: Api;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  api = await openSandbox({ webhookUrl: receiver.url });
});
afterEach(async () => {
  await api.sandbox.close();
  await receiver.close();
});

const balance = async (currency: string) =>
  (await api.get(`/wallet?currency=${currency}`)).body.data[0].balance;

function invoice(overrides: Partial<Parameters<typeof encodeInvoice>[0]> = {}) {
  return encodeInvoice({
    amountSats: 1000,
    paymentHash: new Uint8Array(32).fill(3),
    paymentSecret: new Uint8Array(32).fill(4),
    description: "treasury",
    timestamp: Math.floor(api.sandbox.now() / 1000),
    expirySeconds: 3600,
    ...overrides,
  });
}

describe("NGN withdrawal", () => {
  it("debits the wallet, returns a PENDING transaction and reports SUCCESS by webhook", async () => {
    const name = (
      await api.get(`/bank/name-enquiry?accountNumber=${NGN_BENEFICIARY.bankAccountNumber}&bankCode=000013`)
    ).body.data.accountName;
    const reply = await api.post("/withdraw", {
      amount: "100000",
      currency: "NGN",
      beneficiary: { ...NGN_BENEFICIARY, bankAccountName: name },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty("message");
    const tx = reply.body.data;
    expect(tx).toMatchObject({
      amount: 100_000,
      fees: 0,
      currency: "NGN",
      type: "WITHDRAWAL",
      status: "PENDING",
      metadata: { bankAccountNumber: "0149200000", bankCode: "000013" },
    });
    expect(await balance("NGN")).toBe(50_000_000 - 100_000);
    const [sent] = await waitForWebhooks(receiver, 1);
    expect(sent?.payload).toMatchObject({
      event: "payment.sent",
      data: {
        id: tx.id,
        status: "SUCCESS",
        transactionMetadata: { bankName: "GTBANK PLC", bankAccountName: "OLADEJI OLAOLU" },
      },
    });
    expect((await api.get(`/transaction?id=${tx.id}`)).body.data).toMatchObject({
      status: "SUCCESS",
      metadata: { order: null },
    });
  });

  it("fails an account ending in 999 after the fact and refunds", async () => {
    const account = "0123456999";
    const name = (await api.get(`/bank/name-enquiry?accountNumber=${account}&bankCode=000014`)).body.data
      .accountName;
    const reply = await api.post("/withdraw", {
      amount: 250_000,
      currency: "NGN",
      beneficiary: {
        bankAccountNumber: account,
        bankAccountName: name,
        bankCode: "000014",
        bankName: "ACCESS BANK",
      },
    });
    expect(reply.body.data.status).toBe("PENDING");
    const [sent] = await waitForWebhooks(receiver, 1);
    expect(sent?.payload.data.status).toBe("FAILED");
    expect(await balance("NGN")).toBe(50_000_000);
  });

  it("refuses mismatches, bad banks, unknown accounts and overdrafts", async () => {
    const good = { ...NGN_BENEFICIARY };
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { amount: "100000", currency: "NGN", beneficiary: { ...good, bankAccountName: "Oladeji Olaolu" } },
        "Name Mismatch",
      ],
      [
        { amount: "100000", currency: "NGN", beneficiary: { ...good, bankName: "GTBank" } },
        "Name Mismatch: bankName must be exactly the bank list name for bankCode",
      ],
      [
        { amount: "100000", currency: "NGN", beneficiary: { ...good, bankCode: "123456" } },
        "Invalid Bank Code",
      ],
      [
        { amount: "100000", currency: "NGN", beneficiary: { ...good, bankAccountNumber: "0000000000" } },
        "Invalid account number",
      ],
      [
        { amount: "100000", currency: "NGN", beneficiary: { ...good, bankAccountNumber: "1111111111" } },
        "Account verification failed",
      ],
      [{ amount: "50000001", currency: "NGN", beneficiary: good }, "Insufficient Balance"],
      [
        { amount: "100000", currency: "KES", beneficiary: good },
        "currency: must be NGN (the only supported withdrawal currency)",
      ],
      [
        { amount: "1000.50", currency: "NGN", beneficiary: good },
        "amount: must be a positive integer in minor units (kobo, cents, pesewas or sats), e.g. 200000",
      ],
      [{ amount: "100000", currency: "NGN" }, "beneficiary is required"],
    ];
    for (const [body, message] of cases) {
      const reply = await api.post("/withdraw", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toEqual({ status: "error", message });
    }
    expect(await balance("NGN")).toBe(50_000_000);
    expect(receiver.received).toHaveLength(0);
  });
});

describe("BTC withdrawal to a Lightning invoice", () => {
  it("decodes the amount, debits the BTC wallet and reports SUCCESS", async () => {
    const bolt11 = invoice({ amountSats: 1234 });
    const reply = await api.post("/withdraw/btc", { invoice: bolt11, memo: "treasury sweep" });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      amount: 1234,
      currency: "BTC",
      type: "WITHDRAWAL",
      status: "PENDING",
      hash: "03".repeat(32),
      metadata: { lnInvoice: bolt11, paymentMethod: "LIGHTNING" },
    });
    expect(await balance("BTC")).toBe(5_000_000 - 1234);
    const [sent] = await waitForWebhooks(receiver, 1);
    expect(sent?.payload.data).toMatchObject({ status: "SUCCESS", btcUsdMetadata: { lnInvoice: bolt11 } });
  });

  it("rejects garbage, amountless, expired, mainnet and unaffordable invoices", async () => {
    const now = Math.floor(api.sandbox.now() / 1000);
    const cases: Array<[unknown, string | RegExp]> = [
      [{ invoice: "lntbs1qqqqgarbage" }, /^Invalid Lightning invoice/],
      [{ invoice: "hello" }, /^Invalid Lightning invoice/],
      [
        { invoice: invoice({ amountSats: null }) },
        "Amountless invoices are not supported: the invoice must carry an amount",
      ],
      [{ invoice: invoice({ timestamp: now - 7200 }) }, "Invoice expired"],
      [
        { invoice: invoice({ network: "bc" }) },
        "Invoice network mismatch: the sandbox pays signet/testnet invoices (lntbs…, lntb…)",
      ],
      [{ invoice: invoice({ amountSats: 5_000_001 }) }, "Insufficient Balance"],
      [{}, "invoice is required"],
      [{ invoice: 42 }, "invoice: must be a string"],
    ];
    for (const [body, message] of cases) {
      const reply = await api.post("/withdraw/btc", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      if (typeof message === "string") expect(reply.body.message).toBe(message);
      else expect(reply.body.message).toMatch(message);
    }
    expect(await balance("BTC")).toBe(5_000_000);
  });

  it("paying one of the sandbox's own quote invoices pays that quote", async () => {
    const quote = (await api.post("/quote", ngnPayoutQuote())).body.data;
    const reply = await api.post("/withdraw/btc", { invoice: quote.invoice });
    expect(reply.status).toBe(200);
    const hooks = await waitForWebhooks(receiver, 3);
    expect(hooks.map((hook) => `${hook.event}:${hook.payload.data.currency}`)).toEqual([
      "payment.sent:BTC",
      "payment.received:NGN",
      "payment.sent:NGN",
    ]);
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data.status).toBe("PAID");
    // A second payment to the same invoice fails, as a node fails a hash it has already settled.
    const before = await balance("BTC");
    const again = await api.post("/withdraw/btc", { invoice: quote.invoice });
    expect(again.status).toBe(200);
    const [, , , failed] = await waitForWebhooks(receiver, 4);
    expect(failed?.payload.data).toMatchObject({ id: again.body.data.id, status: "FAILED", currency: "BTC" });
    expect(await balance("BTC")).toBe(before);
  });

  it("an invoice carrying a quote's payment hash for another amount fails and leaves the quote unpaid", async () => {
    const quote = (await api.post("/quote", ngnPayoutQuote())).body.data;
    const before = await balance("BTC");
    const foreign = invoice({
      amountSats: 2_702,
      paymentHash: Buffer.from(quote.hash, "hex"),
    });
    const reply = await api.post("/withdraw/btc", { invoice: foreign });
    expect(reply.status).toBe(200);
    const [sent] = await waitForWebhooks(receiver, 1);
    expect(sent?.payload.data).toMatchObject({ status: "FAILED", currency: "BTC", amount: 2_702 });
    const detail = (await api.get(`/transaction?id=${reply.body.data.id}`)).body.data;
    expect(detail.metadata.failureReason).toMatch(/incorrect payment details/);
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data.status).not.toBe("PAID");
    expect(await balance("BTC")).toBe(before);
    expect(receiver.received.filter((hook) => hook.event === "payment.received")).toEqual([]);
  });

  it(`an outside invoice whose description holds "${NO_ROUTE_DESCRIPTION}" finds no route`, async () => {
    const before = await balance("BTC");
    const reply = await api.post("/withdraw/btc", {
      invoice: invoice({ description: `refund ${NO_ROUTE_DESCRIPTION}` }),
    });
    expect(reply.status).toBe(200);
    const [sent] = await waitForWebhooks(receiver, 1);
    expect(sent?.payload.data).toMatchObject({ id: reply.body.data.id, status: "FAILED" });
    expect(await balance("BTC")).toBe(before);
  });
});
