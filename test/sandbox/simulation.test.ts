import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Api,
  createQuote as create,
  ngnPayoutQuote,
  openSandbox,
  payLightning as pay,
  type Receiver,
  startReceiver,
  waitForWebhooks,
} from "./harness.ts";

/** POST /simulation/pay-in errors, quote expiry on the sandbox clock, lookups of unknown ids. */

let api: Api;
let receiver: Receiver;
const SECRET = "whsec_test_payouts";

beforeEach(async () => {
  receiver = await startReceiver();
  api = await openSandbox({ webhookUrl: receiver.url, webhookSecret: SECRET });
});
afterEach(async () => {
  await api.sandbox.close();
  await receiver.close();
});

const createQuote = (body: unknown) => create(api, body);
const payLightning = (quote: { id: string }) => pay(api, quote);

describe("simulation errors and expiry", () => {
  it("refuses unknown, mismatched, repeated and expired pay-ins", async () => {
    const quote = await createQuote(ngnPayoutQuote());
    const cases: Array<[unknown, string]> = [
      [{ currency: "BTC", quoteId: "00000000-0000-0000-0000-000000000000" }, "Invalid quote ID"],
      [{ currency: "BTC", orderId: "00000-0000" }, "Invalid quote ID"],
      [{ currency: "NGN", quoteId: quote.id, amount: quote.totalAmountInSourceCurrency }, "Invalid currency"],
      [{ currency: "KES", quoteId: quote.id }, "Invalid currency"],
      [{ currency: "BTC", quoteId: quote.id, amount: 1 }, "Amount mismatch"],
      [{ currency: "BTC" }, "quoteId or orderId is required"],
      [{ quoteId: quote.id }, "currency is required"],
    ];
    for (const [body, message] of cases) {
      const reply = await api.post("/simulation/pay-in", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toEqual({ status: "error", message });
    }
    await payLightning(quote);
    const again = await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.id });
    expect(again.body).toEqual({ status: "error", message: "Quote already paid" });
  });

  it("expires an unpaid quote on the sandbox clock: order EXPIRED, pay-in refused", async () => {
    const quote = await createQuote(ngnPayoutQuote());
    await api.control("POST", "/_sandbox/clock/advance", { ms: 4 * 60_000 });
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data).toMatchObject({
      status: "PENDING",
      isValid: true,
    });
    const advanced = await api.control("POST", "/_sandbox/clock/advance", { ms: 60_000 });
    expect(advanced.body.data.ran).toBeGreaterThanOrEqual(1);
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data).toMatchObject({
      status: "EXPIRED",
      isValid: false,
    });
    const reply = await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.id });
    expect(reply.body).toEqual({ status: "error", message: "Invalid quote ID" });
    expect(receiver.received).toHaveLength(0);
  });

  it("needs the exact NGN amount for bank-transfer quotes", async () => {
    const quote = await createQuote({
      amount: 500_000,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "NGNKOBO",
    });
    const short = await api.post("/simulation/pay-in", {
      currency: "NGN",
      quoteId: quote.id,
      amount: 499_999,
    });
    expect(short.body).toEqual({ status: "error", message: "Amount mismatch" });
    const missing = await api.post("/simulation/pay-in", { currency: "NGN", quoteId: quote.id });
    expect(missing.body.message).toMatch(/^Amount mismatch/);
    const paid = await api.post("/simulation/pay-in", {
      currency: "NGN",
      orderId: quote.orderId,
      amount: 500_000,
    });
    expect(paid.status).toBe(200);
    const [received] = await waitForWebhooks(receiver, 1);
    // No beneficiary: the sats stay in the BTC wallet and no payment.sent follows.
    expect(received?.payload.data).toMatchObject({
      type: "DEPOSIT",
      currency: "BTC",
      amount: quote.amountInTargetCurrency,
      btcUsdMetadata: { orderId: quote.orderId, paymentMethod: "BANKTRANSFER" },
    });
    expect((await api.get("/wallet?currency=BTC")).body.data[0].balance).toBe(
      5_000_000 + quote.amountInTargetCurrency,
    );
  });

  it("answers lookups for unknown ids with 404 and missing ids with 400", async () => {
    expect((await api.get("/order?id=12345-6789")).status).toBe(404);
    expect((await api.get("/order")).status).toBe(400);
    expect((await api.get("/transaction?hash=abc")).body).toEqual({
      status: "error",
      message: "Transaction not found",
    });
    expect((await api.get("/transaction")).body).toEqual({
      status: "error",
      message: "Provide one of id, orderId or hash",
    });
  });
});
