import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import {
  type Api,
  MAINNET_ADDRESS,
  onchainQuote,
  openSandbox,
  type Receiver,
  signatureValid,
  startReceiver,
  TESTNET_ADDRESS,
  waitFor,
  waitForWebhooks,
} from "./harness.ts";

/** NGN→BTC purchases (on-chain with confirmations, Lightning) and payment links. */

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

async function confirmations(hash: string): Promise<number> {
  return (await api.get(`/transaction?hash=${hash}`)).body.data.metadata.confirmations;
}

async function payNgn(quote: { id: string; totalAmountInSourceCurrency: number }) {
  const reply = await api.post("/simulation/pay-in", {
    currency: "NGN",
    quoteId: quote.id,
    amount: quote.totalAmountInSourceCurrency,
  });
  expect(reply.body).toEqual({ status: "ok", data: "PayIn simulation successful" });
}

describe("on-chain purchase", () => {
  it("sends payment.sent PENDING, then SUCCESS after 3 mined blocks", async () => {
    const quote = (await api.post("/quote", onchainQuote({ customerReference: "buy-1" }))).body.data;
    await payNgn(quote);
    const [received, pending] = await waitForWebhooks(receiver, 2);
    expect(received?.payload.data).toMatchObject({
      type: "DEPOSIT",
      status: "SUCCESS",
      currency: "BTC",
      hash: quote.hash,
      amount: 10_000,
      fees: 58,
    });
    expect(Object.keys(received?.payload.data.btcUsdMetadata)).toEqual([
      "id",
      "orderId",
      "paymentMethod",
      "externalRef",
      "customerReference",
      "customerInternalFee",
      "estimatedRoutingFee",
      "onChainAddress",
      "lnInvoice",
      "lnAddress",
      "createdAt",
      "updatedAt",
    ]);
    expect(received?.payload.data.btcUsdMetadata).toMatchObject({
      orderId: quote.orderId,
      paymentMethod: "BANKTRANSFER",
      externalRef: "buy-1",
      estimatedRoutingFee: 600,
      onChainAddress: TESTNET_ADDRESS,
      lnInvoice: null,
      lnAddress: null,
    });
    expect(pending?.payload.data).toMatchObject({
      type: "WITHDRAWAL",
      status: "PENDING",
      currency: "BTC",
      hash: quote.hash,
      amount: 10_000,
      fees: 600,
    });
    const txid = pending?.payload.data.btcUsdMetadata.onchainTxid;
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    expect(pending?.payload.data.btcUsdMetadata.onchainNetworkSpeed).toBe("fast");
    expect(await confirmations(quote.hash)).toBe(0);

    const mined = await api.control("POST", "/_sandbox/blocks/mine", { count: 2 });
    expect(mined.body.data.confirmed).toEqual([]);
    expect(await confirmations(quote.hash)).toBe(2);
    expect((await api.get(`/transaction?hash=${quote.hash}`)).body.data.status).toBe("PENDING");

    const third = await api.control("POST", "/_sandbox/blocks/mine", { count: 1 });
    expect(third.body.data.confirmed).toEqual([pending?.payload.data.id]);
    const hooks = await waitForWebhooks(receiver, 3);
    const success = hooks[2];
    expect(success?.payload.data).toMatchObject({
      id: pending?.payload.data.id,
      status: "SUCCESS",
      type: "WITHDRAWAL",
      btcUsdMetadata: { onchainTxid: txid },
    });
    for (const hook of hooks) expect(signatureValid(hook, api.sandbox.webhookSecret)).toBe(true);
    const state = (await api.control("GET", "/_sandbox/state")).body.data;
    expect(state.transactions.at(-1).onchain).toMatchObject({
      txid,
      confirmations: 3,
      requiredConfirmations: 3,
      speed: "fast",
    });
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data.status).toBe("PAID");
    // Deposit credited and payout debited: the BTC wallet is back where it started.
    expect((await api.get("/wallet?currency=BTC")).body.data[0].balance).toBe(5_000_000);
  });

  it("confirms on the sandbox clock at the speed's block pace", async () => {
    const paces: Array<["fast" | "medium" | "slow", number]> = [
      ["fast", 10],
      ["medium", 20],
      ["slow", 60],
    ];
    for (const [speed, minutes] of paces) {
      const quote = (await api.post("/quote", onchainQuote({ speed }))).body.data;
      await payNgn(quote);
      await api.control("POST", "/_sandbox/clock/advance", { ms: 2 * minutes * 60_000 });
      expect(await confirmations(quote.hash)).toBe(2);
      await api.control("POST", "/_sandbox/clock/advance", { ms: minutes * 60_000 });
      expect(await confirmations(quote.hash)).toBe(3);
      await waitFor(`${speed} success event`, () =>
        receiver.received.find(
          (hook) =>
            hook.payload.data.hash === quote.hash &&
            hook.payload.data.status === "SUCCESS" &&
            hook.event === "payment.sent",
        ),
      );
    }
  });

  it("pays a Lightning invoice beneficiary straight away", async () => {
    const invoice = encodeInvoice({
      amountSats: 7000,
      paymentHash: new Uint8Array(32).fill(1),
      paymentSecret: new Uint8Array(32).fill(2),
      description: "x",
      timestamp: Math.floor(api.sandbox.now() / 1000),
      expirySeconds: 3600,
    });
    const quote = (
      await api.post("/quote", {
        amount: 7000,
        sourceCurrency: "NGNKOBO",
        targetCurrency: "BTCSAT",
        paymentMethod: "BANKTRANSFER",
        paymentCurrency: "BTCSAT",
        autopayout: true,
        beneficiary: { lnInvoice: invoice },
      })
    ).body.data;
    expect(quote.invoice).toBe("");
    await payNgn(quote);
    const [, sent] = await waitForWebhooks(receiver, 2);
    expect(sent?.payload.data).toMatchObject({
      status: "SUCCESS",
      type: "WITHDRAWAL",
      amount: 7000,
      btcUsdMetadata: { lnInvoice: invoice, onChainAddress: null },
    });
    expect(sent?.payload.data.btcUsdMetadata).not.toHaveProperty("onchainTxid");
  });
});

const LINK = {
  name: "Invoice 17",
  description: "Consulting",
  type: "One_Time",
  addFeeToTotalCost: false,
  settlementCurrency: "BTC",
  settlementMethod: "ONCHAIN",
  speed: "medium",
  paymentCurrency: "NGN",
  paymentMethods: ["BANKTRANSFER"],
  beneficiary: { onChainAddress: TESTNET_ADDRESS },
  amount: 2_000_000,
  callbackUrl: "https://merchant.example/done",
};

describe("payment links", () => {
  it("creates a link with one PENDING order, renews it on expiry and settles after 3 blocks", async () => {
    const created = await api.post("/paymentlink", LINK);
    expect(created.body).toMatchObject({ status: "ok", message: "payment link created successfully" });
    const ref = created.body.data.paymentRef;
    expect(created.body.data.paymentLink).toBe(`${api.sandbox.origin}/checkout/${ref}`);

    const first = (await api.get(`/paymentlink/orders?id=${ref}`)).body;
    expect(first.message).toBe("payment link orders retrieved successfully");
    expect(first.data).toMatchObject({
      id: ref,
      type: "ONE_TIME",
      amount: "2000000",
      settlementMethod: "ONCHAIN",
      speed: "medium",
      paymentMethods: ["BANKTRANSFER"],
      channel: "API",
      status: "ACTIVE",
      beneficiaryId: TESTNET_ADDRESS,
      callbackUrl: LINK.callbackUrl,
      expiresAt: null,
    });
    expect(first.data.orders).toHaveLength(1);
    expect(first.data.orders[0]).toMatchObject({
      status: "PENDING",
      paymentLinkId: ref,
      paymentMethod: "BANKTRANSFER",
      orderId: expect.stringMatching(/^\d{5}-\d{4}$/),
    });

    const details = (await api.get(`/paymentlink/details?id=${ref}`)).body.data.paymentLinkDetails;
    expect(details).toMatchObject({
      id: ref,
      name: "Invoice 17",
      settlementCurrency: "BTC",
      paymentLinkOrderId: first.data.orders[0].orderId,
      paymentMethods: ["BANKTRANSFER"],
      account: { name: "Sandbox Payouts Ltd" },
    });
    // fee ceil(2e6·55/10055) = 10940; (2e6 − 10940) / 150 = 13260 sats, minus the 343-sat medium network fee.
    expect(details.BANKTRANSFER).toMatchObject({
      ngnAccountName: "Mava Digital Solutions Limited",
      amount: 2_000_000,
      targetAmount: 12_917,
    });

    await api.control("POST", "/_sandbox/clock/advance", { ms: 10 * 60_000 + 1 });
    const renewed = (await api.get(`/paymentlink/orders?id=${ref}`)).body.data.orders;
    expect(renewed.map((order: { status: string }) => order.status)).toEqual(["EXPIRED", "PENDING"]);
    const expiredPay = await api.post("/simulation/pay-in", {
      currency: "NGN",
      orderId: renewed[0].orderId,
      amount: 2_000_000,
    });
    expect(expiredPay.body).toEqual({ status: "error", message: "Invalid quote ID" });
    const status = await api.call("GET", `/paymentlink/status?orderId=${renewed[1].orderId}`, undefined, {
      key: null,
    });
    expect(status.body).toEqual({ status: "ok", data: { status: "PENDING" } });

    const paid = await api.post("/simulation/pay-in", {
      currency: "NGN",
      orderId: renewed[1].orderId,
      amount: 2_000_000,
    });
    expect(paid.status).toBe(200);
    await waitForWebhooks(receiver, 2);
    await api.control("POST", "/_sandbox/blocks/mine", { count: 3 });
    const hooks = await waitForWebhooks(receiver, 4);
    expect(hooks.map((hook) => [hook.event, hook.payload.data.status ?? null])).toEqual([
      ["payment.received", "SUCCESS"],
      ["payment.sent", "PENDING"],
      ["payment.sent", "SUCCESS"],
      ["payment_link.settled", null],
    ]);
    expect(hooks[3]?.payload.data).toMatchObject({
      paymentRef: ref,
      paymentLink: created.body.data.paymentLink,
      callbackUrl: LINK.callbackUrl,
      settlementCurrency: "BTC",
      paymentCurrency: "NGN",
      paymentMethod: "BANKTRANSFER",
      transaction: {
        type: "WITHDRAWAL",
        status: "SUCCESS",
        amount: 12_917,
        btcUsdMetadata: {
          orderId: renewed[1].orderId,
          onChainAddress: TESTNET_ADDRESS,
          onchainNetworkSpeed: "medium",
        },
      },
    });
    expect(
      (await api.call("GET", `/paymentlink/status?orderId=${renewed[1].orderId}`, undefined, { key: null }))
        .body.data.status,
    ).toBe("SETTLED");
    const refreshed = await api.call(
      "GET",
      `/paymentlink/refresh?id=${ref}&paymentMethod=BANKTRANSFER`,
      undefined,
      { key: null },
    );
    expect(refreshed.body.data.paymentLinkDetails.paymentLinkOrderId).toBe(renewed[1].orderId);
    const lightning = await api.get(`/paymentlink/details?id=${ref}&paymentMethod=LIGHTNING`);
    expect(lightning.body.message).toBe("Invalid payment method: this link accepts BANKTRANSFER");
    const page = await api.control("GET", `/checkout/${ref}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Invoice 17");
  });

  it("charges the fee on top when addFeeToTotalCost is true", async () => {
    const ref = (await api.post("/paymentlink", { ...LINK, addFeeToTotalCost: true })).body.data.paymentRef;
    const bank = (await api.get(`/paymentlink/details?id=${ref}`)).body.data.paymentLinkDetails.BANKTRANSFER;
    expect(bank).toMatchObject({ amount: 2_011_000, targetAmount: 13_333 - 343 });
  });

  it("validates links and answers 404 for unknown ones", async () => {
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ ...LINK, speed: undefined }, "speed is required for ONCHAIN settlement (slow, medium or fast)"],
      [{ ...LINK, paymentMethods: ["CARD"] }, /^paymentMethods.*must be one of BANKTRANSFER, LIGHTNING/],
      [{ ...LINK, paymentMethods: [] }, "paymentMethods: must not be empty"],
      [{ ...LINK, paymentMethods: ["LIGHTNING", "lightning"] }, "paymentMethods: must not repeat a method"],
      [{ ...LINK, settlementMethod: "LIGHTNING" }, "settlementMethod: must be ONCHAIN"],
      [{ ...LINK, amount: 900_000 }, "Amount too small: the minimum on-chain purchase is 6000 sats"],
      [
        { ...LINK, beneficiary: { onChainAddress: MAINNET_ADDRESS } },
        /^beneficiary.onChainAddress: must be a signet/,
      ],
      [{ ...LINK, beneficiary: undefined }, "beneficiary is required"],
      [{ ...LINK, name: "" }, "name: must not be empty"],
      [{ ...LINK, callbackUrl: "ftp://x" }, "callbackUrl: must be an http(s) URL"],
    ];
    for (const [body, message] of cases) {
      const reply = await api.post("/paymentlink", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      if (typeof message === "string") expect(reply.body.message).toBe(message);
      else expect(reply.body.message).toMatch(message);
    }
    expect((await api.get("/paymentlink/details?id=9d1c20db-c46b-4a15-8233-1bb999e38195")).status).toBe(404);
    expect((await api.get("/paymentlink/orders?id=nope")).body).toEqual({
      status: "error",
      message: "Payment link not found",
    });
    expect((await api.call("GET", "/paymentlink/status?orderId=1-1", undefined, { key: null })).status).toBe(
      404,
    );
  });
});
