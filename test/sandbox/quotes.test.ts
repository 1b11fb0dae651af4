import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import {
  type Api,
  decodeInvoice,
  expectBadRequest,
  KES_PHONE,
  ngnPayoutQuote,
  onchainQuote,
  openSandbox,
  TESTNET_ADDRESS,
} from "./harness.ts";

/** POST /quote: every use case and the response shapes. */

let api: Api;
beforeAll(async () => {
  api = await openSandbox();
});
afterAll(() => api.sandbox.close());
beforeEach(async () => {
  await api.control("POST", "/_sandbox/reset");
});

const quote = (body: unknown) => api.post("/quote", body);

describe("use cases", () => {
  it("1. NGN bank payout over Lightning carries a real signet invoice for the total", async () => {
    const now = api.sandbox.now();
    const reply = await quote(ngnPayoutQuote({ customerReference: "order-1" }));
    expect(reply.status).toBe(200);
    const data = reply.body.data;
    expect(Object.keys(data)).toEqual([
      "id",
      "exchangeRate",
      "usdToTargetCurrencyRate",
      "sourceCurrency",
      "targetCurrency",
      "transactionFeesInSourceCurrency",
      "transactionFeesInTargetCurrency",
      "amountInSourceCurrency",
      "amountInTargetCurrency",
      "paymentMethod",
      "expiry",
      "isValid",
      "invoice",
      "hash",
      "totalAmountInSourceCurrency",
      "customerInternalFee",
      "customerReference",
      "orderId",
      "createdAt",
      "updatedAt",
    ]);
    expect(data).toMatchObject({
      exchangeRate: 150_000_000,
      usdToTargetCurrencyRate: 1500,
      sourceCurrency: "BTCSAT",
      targetCurrency: "NGNKOBO",
      transactionFeesInSourceCurrency: 67,
      transactionFeesInTargetCurrency: 10_050,
      amountInSourceCurrency: 6754,
      amountInTargetCurrency: 1_000_000,
      paymentMethod: "LIGHTNING",
      isValid: true,
      totalAmountInSourceCurrency: 6754,
      customerInternalFee: 0,
      customerReference: "order-1",
    });
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.orderId).toMatch(/^\d{5}-\d{4}$/);
    expect(data.hash).toMatch(/^[0-9a-f]{64}$/);
    const expiry = Date.parse(data.expiry);
    expect(expiry - now).toBeGreaterThanOrEqual(5 * 60_000);
    expect(expiry - now).toBeLessThan(5 * 60_000 + 5_000);
    expect(data.invoice.startsWith("lntbs67540n1")).toBe(true);
    const invoice = decodeInvoice(data.invoice);
    expect(invoice).toMatchObject({ amountSats: 6754, paymentHash: data.hash, network: "tbs", expiry: 300 });
  });

  it("1b. accepts the amount on the source side and as a numeric string", async () => {
    const reply = await quote(ngnPayoutQuote({ amount: "20000", paymentCurrency: "BTCSAT" }));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      amountInSourceCurrency: 20_000,
      totalAmountInSourceCurrency: 20_000,
    });
    expect(decodeInvoice(reply.body.data.invoice).amountSats).toBe(20_000);
    // fee ceil(20000·100/10100) = 199; (20000−199)·150·0.997 = 2 961 239.55 → 2 961 239 kobo
    expect(reply.body.data.transactionFeesInSourceCurrency).toBe(199);
    expect(reply.body.data.amountInTargetCurrency).toBe(2_961_239);
  });

  it("adds customerInternalFee on top of the total and the invoice", async () => {
    const reply = await quote(ngnPayoutQuote({ customerInternalFee: 100 }));
    expect(reply.body.data).toMatchObject({
      amountInSourceCurrency: 6754,
      customerInternalFee: 100,
      totalAmountInSourceCurrency: 6854,
    });
    expect(decodeInvoice(reply.body.data.invoice).amountSats).toBe(6854);
  });

  it("2. KES payouts in all three modes, spec and real variants, without bank fields", async () => {
    const beneficiaries = [
      KES_PHONE,
      { identifierType: "paytophone", identifiers: { phoneNumber: "+254790000000" } },
      {
        identifierType: "paytobill",
        identifiers: { accountName: "vlad", paybillNumber: "4141031", accountNumber: "test_account" },
      },
      { identifierType: "paytotill", identifiers: { accountNumber: "000000" } },
      { identifierType: "paytotill", accountName: "Business Name", identifiers: { tillNumber: "796980711" } },
    ];
    for (const beneficiary of beneficiaries) {
      const reply = await quote({
        amount: 100_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "KESCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "BTCSAT",
        autopayout: true,
        beneficiary,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data).toMatchObject({
        targetCurrency: "KESCENT",
        exchangeRate: 13_000_000,
        transactionFeesInSourceCurrency: 498,
        amountInTargetCurrency: 1_293_526,
      });
      expect(reply.body.data).not.toHaveProperty("bankName");
      expect(reply.body.data).not.toHaveProperty("ngnBankAccountNumber");
    }
  });

  it("ZAR bank payouts need a ZA bank name", async () => {
    const beneficiary = { name: "Ricki Tester", bankName: "CAPITEC BANK", bankAccountNumber: "1352900000" };
    const reply = await quote({
      amount: 1_000_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "ZARCENT",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "ZARCENT",
      autopayout: true,
      beneficiary,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      amountInTargetCurrency: 1_000_000,
      exchangeRate: 1_800_000,
      usdToTargetCurrencyRate: 18,
    });
    expectBadRequest(
      await quote({
        amount: 1_000_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "ZARCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "ZARCENT",
        autopayout: true,
        beneficiary: { ...beneficiary, bankName: "BANK OF NOWHERE" },
      }),
      "Invalid bank name: use a name from GET /bank/bankcode?country=ZA",
    );
    expectBadRequest(
      await quote({
        amount: 1_000_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "ZARCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "ZARCENT",
        autopayout: false,
      }),
      "ZAR payouts require autopayout: true",
    );
  });

  it("GHS MTN payouts", async () => {
    const beneficiary = {
      identifierType: "MTN",
      identifiers: { phoneNumber: "+233999992800", accountName: "Mensah" },
    };
    const reply = await quote({
      amount: 50_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "GHSPESEWA",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "GHSPESEWA",
      autopayout: true,
      beneficiary,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ targetCurrency: "GHSPESEWA", amountInTargetCurrency: 50_000 });
    expectBadRequest(
      await quote({
        amount: 50_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "GHSPESEWA",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "GHSPESEWA",
        autopayout: true,
        beneficiary: { ...beneficiary, identifierType: "VODAFONE" },
      }),
      "beneficiary.identifierType: must be MTN (the only supported GHS network)",
    );
  });

  it("3. on-chain purchase: bank details, address in invoice, network fee, 10-minute expiry", async () => {
    const now = api.sandbox.now();
    const reply = await quote(onchainQuote());
    expect(reply.status).toBe(200);
    const data = reply.body.data;
    expect(data).toMatchObject({
      exchangeRate: 1,
      usdToTargetCurrencyRate: 0.00001,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      invoice: TESTNET_ADDRESS,
      amountInTargetCurrency: 10_000,
      amountInSourceCurrency: 1_598_745,
      transactionFeesInSourceCurrency: 8_745,
      transactionFeesInTargetCurrency: 58,
      totalAmountInSourceCurrency: 1_598_745,
      ngnAccountName: "Mava Digital Solutions Limited",
      estimatedRoutingFee: 600,
    });
    expect(data.hash).toMatch(/^[0-9a-f]{24}$/);
    expect(data.ngnBankAccountNumber).toMatch(/^\d{10}$/);
    expect([
      ["GLOBUS BANK", "000027"],
      ["WEMA BANK", "000017"],
    ]).toContainEqual([data.bankName, data.ngnBankCode]);
    expect(Date.parse(data.expiry) - now).toBeGreaterThanOrEqual(10 * 60_000);
    const second = (await quote(onchainQuote())).body.data;
    expect(second.ngnBankAccountNumber).not.toBe(data.ngnBankAccountNumber);
    expect(second.bankName).not.toBe(data.bankName);
  });

  it("4. bank-transfer quote without beneficiary has an empty invoice", async () => {
    const reply = await quote({
      amount: 500_000,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      invoice: "",
      estimatedRoutingFee: 0,
      amountInSourceCurrency: 500_000,
      transactionFeesInSourceCurrency: 2_735,
    });
  });

  it("lnInvoice beneficiary: amount must match and paymentCurrency must be the target", async () => {
    const invoice = encodeInvoice({
      amountSats: 2000,
      paymentHash: new Uint8Array(32).fill(7),
      paymentSecret: new Uint8Array(32).fill(8),
      description: "external",
      timestamp: Math.floor(api.sandbox.now() / 1000),
      expirySeconds: 3600,
    });
    const base = {
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      autopayout: true,
      beneficiary: { lnInvoice: invoice },
    };
    expect((await quote({ ...base, amount: 2000, paymentCurrency: "BTCSAT" })).status).toBe(200);
    expectBadRequest(
      await quote({ ...base, amount: 2001, paymentCurrency: "BTCSAT" }),
      "Invoice amount mismatch: the invoice amount must equal amount",
    );
    expectBadRequest(
      await quote({ ...base, amount: 400_000, paymentCurrency: "NGNKOBO" }),
      "Autopayout requires payment currency to be target currency",
    );
    expectBadRequest(
      await quote({
        ...base,
        amount: 2000,
        paymentCurrency: "BTCSAT",
        autopayout: true,
        beneficiary: { lnInvoice: "lntbs1garbage" },
      }),
      /^beneficiary.lnInvoice: Invalid Lightning invoice/,
    );
    expect(
      (
        await quote({
          ...base,
          amount: 2000,
          paymentCurrency: "BTCSAT",
          autopayout: true,
          beneficiary: { lnAddress: "user@getalby.com" },
        })
      ).status,
    ).toBe(200);
  });

  it("ignores the beneficiary when autopayout is false", async () => {
    const reply = await quote(ngnPayoutQuote({ autopayout: false, beneficiary: { nonsense: true } }));
    expect(reply.status).toBe(200);
  });
});
