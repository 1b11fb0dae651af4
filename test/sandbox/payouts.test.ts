import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Api,
  createQuote as create,
  NGN_BENEFICIARY,
  ngnPayoutQuote,
  openSandbox,
  payLightning as pay,
  type Receiver,
  signatureValid,
  startReceiver,
  TX_KEYS,
  waitFor,
  waitForWebhooks,
} from "./harness.ts";

/** NGN Lightning payouts end to end: pay-in, events, orders, transactions, the 999 failure. */

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

describe("NGN payout", () => {
  it("emits payment.received then payment.sent, signed, in the target currency with the quote hash", async () => {
    const quote = await createQuote(ngnPayoutQuote({ customerReference: "order-42" }));
    await payLightning(quote);
    const [received, sent] = await waitForWebhooks(receiver, 2);
    expect(received?.event).toBe("payment.received");
    expect(sent?.event).toBe("payment.sent");
    for (const hook of [received, sent]) {
      expect(hook && signatureValid(hook, SECRET)).toBe(true);
      expect(hook?.raw).toBe(JSON.stringify(hook?.payload));
    }
    const deposit = received?.payload.data;
    const withdrawal = sent?.payload.data;
    expect(Object.keys(deposit)).toEqual([...TX_KEYS, "transactionMetadata"]);
    expect(deposit).toMatchObject({
      hash: quote.hash,
      amount: 1_000_000,
      fees: 10_050,
      currency: "NGN",
      type: "DEPOSIT",
      status: "SUCCESS",
      autopayout: true,
    });
    expect(deposit.ref).toMatch(/^[0-9a-f]{29}$/);
    expect(Object.keys(deposit.transactionMetadata)).toEqual([
      "id",
      "orderId",
      "bankCode",
      "bankName",
      "bankAccountName",
      "bankAccountNumber",
      "customerInternalFee",
      "customerReference",
      "createdAt",
      "updatedAt",
    ]);
    expect(deposit.transactionMetadata).toMatchObject({
      orderId: quote.orderId,
      ...NGN_BENEFICIARY,
      customerInternalFee: 0,
      customerReference: "order-42",
    });
    expect(withdrawal).toMatchObject({
      hash: quote.hash,
      amount: 1_000_000,
      fees: 0,
      currency: "NGN",
      type: "WITHDRAWAL",
      status: "SUCCESS",
    });
    expect(withdrawal.id).not.toBe(deposit.id);
    expect(withdrawal.transactionMetadata.orderId).toBe(quote.orderId);
    // The NIP session id the recipient's bank shows: sender code, Lagos time yyMMddHHmmss, 12 digits.
    expect(withdrawal.transactionMetadata.nipSessionId).toMatch(/^999240\d{24}$/);
    expect(deposit.transactionMetadata.nipSessionId).toBeUndefined();

    const log = (await api.control("GET", "/_sandbox/webhooks")).body.data;
    expect(log.map((entry: { event: string }) => entry.event)).toEqual(["payment.received", "payment.sent"]);
    await waitFor("both deliveries logged as delivered", async () => {
      const entries = (await api.control("GET", "/_sandbox/webhooks")).body.data;
      return entries.every((entry: { delivered: boolean }) => entry.delivered) ? entries : undefined;
    });
    const entries = (await api.control("GET", "/_sandbox/webhooks?event=payment.sent")).body.data;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      url: receiver.url,
      body: sent?.raw,
      signature: sent?.headers["x-mavapay-signature"],
      responseCodes: [200],
      delivered: true,
      status: "delivered",
    });
  });

  it("marks the order PAID and exposes both transactions through orders and /transaction", async () => {
    const quote = await createQuote(ngnPayoutQuote());
    await payLightning(quote);
    const order = (await api.get(`/order?id=${quote.orderId}`)).body.data;
    expect(Object.keys(order)).toEqual([
      "orderId",
      "quoteId",
      "status",
      "currency",
      "paymentCollectionMethod",
      "isValid",
      "displayAmount",
      "paymentBtcDetail",
      "createdAt",
      "quotes",
      "transactions",
    ]);
    expect(order).toMatchObject({
      orderId: quote.orderId,
      quoteId: quote.id,
      status: "PAID",
      currency: "NGN",
      paymentCollectionMethod: "LIGHTNING",
      isValid: false,
      displayAmount: "10000.00 NGN",
      paymentBtcDetail: quote.invoice,
    });
    expect(order.transactions.map((tx: { type: string }) => tx.type)).toEqual(["DEPOSIT", "WITHDRAWAL"]);
    expect(Object.keys(order.transactions[0].metadata)).toEqual([
      "id",
      "orderId",
      "bankCode",
      "bankAccountName",
      "bankAccountNumber",
      "customerInternalFee",
      "createdAt",
      "updatedAt",
    ]);

    const list = (await api.get("/order/all")).body.data;
    expect(list).toHaveLength(1);
    expect(Object.keys(list[0])).toEqual([
      "orderId",
      "quoteId",
      "status",
      "currency",
      "paymentMethod",
      "isValid",
      "amount",
      "createdAt",
      "updatedAt",
      "quotes",
      "transactions",
    ]);
    expect(list[0]).toMatchObject({ status: "PAID", paymentMethod: "LIGHTNING", amount: "10000.00" });
    expect(list[0].quotes[0]).toMatchObject({
      id: quote.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const byHash = (await api.get(`/transaction?hash=${quote.hash}`)).body.data;
    expect(byHash).toMatchObject({ type: "WITHDRAWAL", id: order.transactions[1].id });
    expect(byHash.metadata).toMatchObject({
      merchantName: "Sandbox Payouts Ltd",
      bankName: "GTBANK PLC",
      bankAccountNumber: "0149200000",
      reference: byHash.ref,
      nipSessionId: expect.stringMatching(/^\d{30}$/),
      customerInternalFee: 0,
      order: {
        id: quote.orderId,
        settledQuoteId: quote.id,
        amount: 1_000_000,
        currency: "NGN",
        paymentMethod: "LIGHTNING",
        status: "PAID",
        quote: {
          id: quote.id,
          exchangeRate: 150_000_000,
          usdToTargetCurrencyRate: 1500,
          paymentBtcDetail: quote.invoice,
          paymentMethod: "LIGHTNING",
          totalAmount: 6754,
          equivalentAmount: 1_000_000,
          expiry: quote.expiry,
          sourceCurrency: "BTCSAT",
          targetCurrency: "NGNKOBO",
          paymentCurrency: "NGNKOBO",
          customerInternalFee: 0,
        },
      },
    });
    expect((await api.get(`/transaction?orderId=${quote.orderId}`)).body.data.id).toBe(byHash.id);
    expect((await api.get(`/transaction?id=${order.transactions[0].id}`)).body.data.type).toBe("DEPOSIT");
    const user = (await api.get("/user")).body.data;
    expect(user.account.totalSatsExchanged).toBe(6754);
    expect(user.account.walletDetails.balance).toBe("50000000");
    expect(user.account.walletDetails.transactions).toHaveLength(2);
  });

  it("pays by orderId as well", async () => {
    const quote = await createQuote(ngnPayoutQuote());
    const reply = await api.post("/simulation/pay-in", { currency: "BTC", orderId: quote.orderId });
    expect(reply.status).toBe(200);
    await waitForWebhooks(receiver, 2);
  });

  it("fails the payout for an account ending in 999: payment.sent FAILED, order FAILED, funds kept", async () => {
    const quote = await createQuote(
      ngnPayoutQuote({ beneficiary: { ...NGN_BENEFICIARY, bankAccountNumber: "0123456999" } }),
    );
    await payLightning(quote);
    const [received, sent] = await waitForWebhooks(receiver, 2);
    expect(received?.payload.data.status).toBe("SUCCESS");
    expect(sent?.payload).toMatchObject({
      event: "payment.sent",
      data: { status: "FAILED", type: "WITHDRAWAL", hash: quote.hash },
    });
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data.status).toBe("FAILED");
    expect((await api.get(`/transaction?hash=${quote.hash}`)).body.data.metadata.failureReason).toMatch(
      /999/,
    );
    expect((await api.get("/wallet?currency=NGN")).body.data[0].balance).toBe(51_000_000);
  });

  it("with autopayout false only the deposit happens and the wallet keeps it", async () => {
    const quote = await createQuote(ngnPayoutQuote({ autopayout: false, beneficiary: undefined }));
    await payLightning(quote);
    const [received] = await waitForWebhooks(receiver, 1);
    expect(received?.payload.data).toMatchObject({
      type: "DEPOSIT",
      autopayout: false,
      transactionMetadata: { bankCode: null },
    });
    expect((await api.get("/wallet?currency=NGN")).body.data[0].balance).toBe(51_000_000);
    expect((await api.control("GET", "/_sandbox/webhooks")).body.data).toHaveLength(1);
  });
});
