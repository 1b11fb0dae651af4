import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Api,
  createQuote as create,
  kesQuote as KES,
  openSandbox,
  payLightning as pay,
  type Receiver,
  signatureValid,
  startReceiver,
  TX_KEYS,
  waitForWebhooks,
} from "./harness.ts";

/** KES, ZAR and GHS payouts: event shapes per currency and the 999 failure rule. */

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

describe("KES, ZAR and GHS payouts", () => {
  it("KES events use the spec shape for every mode", async () => {
    const modes: Array<[unknown, Record<string, unknown>]> = [
      [
        { identifierType: "paytophone", identifiers: { phoneNumber: "+254790000000", network: "mpesa" } },
        { identifierType: "paytophone", phoneNumber: "+254790000000" },
      ],
      [
        {
          identifierType: "paytobill",
          identifiers: { paybillNumber: "4141031", accountNumber: "test_account" },
        },
        { identifierType: "paytobill", phoneNumber: "4141031" },
      ],
      [
        { identifierType: "paytotill", accountName: "Shop", identifiers: { tillNumber: "000000" } },
        { identifierType: "paytotill", phoneNumber: "000000" },
      ],
    ];
    let seen = 0;
    for (const [beneficiary, sentMetadata] of modes) {
      const quote = await createQuote(KES(beneficiary));
      await payLightning(quote);
      seen += 2;
      const hooks = await waitForWebhooks(receiver, seen);
      const [received, sent] = hooks.slice(-2);
      expect(received?.payload).toEqual({
        event: "payment.received",
        data: {
          id: expect.any(String),
          amount: 1_293_526,
          currency: "KES",
          status: "SUCCESS",
          metadata: { hash: quote.hash, reference: quote.hash },
        },
      });
      expect(sent?.payload).toEqual({
        event: "payment.sent",
        data: {
          id: expect.any(String),
          amount: 1_293_526,
          currency: "KES",
          status: "SUCCESS",
          // The M-Pesa receipt (transaction code) the recipient's SMS shows: 10 uppercase letters and digits.
          metadata: {
            ...sentMetadata,
            reference: quote.hash,
            mpesaReceiptNumber: expect.stringMatching(/^[A-Z][A-Z0-9]{9}$/),
          },
        },
      });
      expect(sent?.payload.data.id).not.toBe(received?.payload.data.id);
      expect(signatureValid(sent!, SECRET)).toBe(true);
    }
  });

  it("KES payouts to a phone, paybill account or till ending in 999 fail", async () => {
    const failing = [
      { identifierType: "paytophone", identifiers: { phoneNumber: "+254790000999" } },
      { identifierType: "paytobill", identifiers: { paybillNumber: "4141031", accountNumber: "acct-999" } },
      { identifierType: "paytotill", identifiers: { accountNumber: "123999" } },
    ];
    for (const [index, beneficiary] of failing.entries()) {
      const quote = await createQuote(KES(beneficiary));
      await payLightning(quote);
      const hooks = await waitForWebhooks(receiver, (index + 1) * 2);
      expect(hooks.at(-1)?.payload.data.status).toBe("FAILED");
      expect((await api.get(`/order?id=${quote.orderId}`)).body.data.status).toBe("FAILED");
    }
  });

  it("ZAR and GHS events carry their own metadata with orderId", async () => {
    const zar = await createQuote({
      amount: 1_000_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "ZARCENT",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "ZARCENT",
      autopayout: true,
      beneficiary: { name: "Ricki Tester", bankName: "CAPITEC BANK", bankAccountNumber: "1352900000" },
    });
    await payLightning(zar);
    const [zarReceived, zarSent] = await waitForWebhooks(receiver, 2);
    expect(Object.keys(zarReceived?.payload.data)).toEqual([...TX_KEYS, "zarTransactionMetadata"]);
    expect(zarSent?.payload.data).toMatchObject({
      currency: "ZAR",
      hash: zar.hash,
      zarTransactionMetadata: {
        orderId: zar.orderId,
        name: "Ricki Tester",
        bankName: "CAPITEC BANK",
        bankAccountNumber: "1352900000",
      },
    });

    const ghs = await createQuote({
      amount: 50_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "GHSPESEWA",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "GHSPESEWA",
      autopayout: true,
      beneficiary: {
        identifierType: "MTN",
        identifiers: { phoneNumber: "+233999992800", accountName: "Mensah" },
      },
    });
    await payLightning(ghs);
    const hooks = await waitForWebhooks(receiver, 4);
    expect(hooks[2]?.payload.data).toMatchObject({
      type: "DEPOSIT",
      currency: "GHS",
      hash: ghs.hash,
      ghsTransactionMetadata: {
        orderId: ghs.orderId,
        identifierType: "MTN",
        phoneNumber: "+233999992800",
        accountName: "Mensah",
      },
    });
    expect(hooks[3]?.payload.data).toMatchObject({ type: "WITHDRAWAL", status: "SUCCESS", currency: "GHS" });
  });

  it("NGN→KES over bank transfer: an NGN DEPOSIT of the total, then the KES payout to the beneficiary", async () => {
    const quote = await createQuote({
      amount: 1_000_000,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "KESCENT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
      beneficiary: { identifierType: "paytophone", identifiers: { phoneNumber: "+254790000000" } },
    });
    expect(quote).toMatchObject({
      exchangeRate: 13_000_000,
      ngnAccountName: "Mava Digital Solutions Limited",
      invoice: "",
      totalAmountInSourceCurrency: 1_000_000,
    });
    expect(quote.hash).toMatch(/^[0-9a-f]{24}$/);
    expect(quote.ngnBankAccountNumber).toMatch(/^\d{10}$/);
    // fee ceil(1e6·59/10059) = 5866 kobo; (1e6 − 5866)·13/150 = 86 158 KES cents (floored)
    expect(quote).toMatchObject({ transactionFeesInSourceCurrency: 5_866, amountInTargetCurrency: 86_158 });
    const paid = await api.post("/simulation/pay-in", {
      currency: "NGN",
      quoteId: quote.id,
      amount: 1_000_000,
    });
    expect(paid.status).toBe(200);
    const [received, sent] = await waitForWebhooks(receiver, 2);
    // The naira that landed (notes §6), not the shillings it buys.
    expect(received?.payload.data).toMatchObject({ type: "DEPOSIT", currency: "NGN", amount: 1_000_000 });
    expect(JSON.stringify(received?.payload.data)).toContain(quote.hash);
    expect(sent?.payload.data).toMatchObject({
      currency: "KES",
      amount: 86_158,
      status: "SUCCESS",
      metadata: { identifierType: "paytophone" },
    });
  });
  it("NGN→KES over bank transfer failing at a 999 phone: the naira that arrived are back in the NGN wallet", async () => {
    const balance = async (currency: string) =>
      (await api.get(`/wallet?currency=${currency}`)).body.data[0].balance as number;
    const [ngnBefore, kesBefore] = [await balance("NGN"), await balance("KES")];
    const quote = await createQuote({
      amount: 1_000_000,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "KESCENT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
      beneficiary: { identifierType: "paytophone", identifiers: { phoneNumber: "+254790000999" } },
    });
    await api.post("/simulation/pay-in", { currency: "NGN", quoteId: quote.id, amount: 1_000_000 });
    const [, sent] = await waitForWebhooks(receiver, 2);
    expect(sent?.payload.data).toMatchObject({ currency: "KES", status: "FAILED" });
    expect(await balance("NGN")).toBe(ngnBefore + 1_000_000);
    expect(await balance("KES")).toBe(kesBefore);
  });
});
