import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Api,
  expectBadRequest,
  KES_PHONE,
  MAINNET_ADDRESS,
  NGN_BENEFICIARY,
  ngnPayoutQuote,
  onchainQuote,
  openSandbox,
  TESTNET_ADDRESS,
} from "./harness.ts";

/** POST /quote: every validation rule and limit. */

let api: Api;
beforeAll(async () => {
  api = await openSandbox();
});
afterAll(() => api.sandbox.close());
beforeEach(async () => {
  await api.control("POST", "/_sandbox/reset");
});

const quote = (body: unknown) => api.post("/quote", body);

describe("validation and limits", () => {
  const cases: Array<[string, Record<string, unknown>, string | RegExp]> = [
    [
      "payment currency on neither side",
      ngnPayoutQuote({ paymentCurrency: "KESCENT" }),
      "Invalid payment currency: paymentCurrency must equal sourceCurrency or targetCurrency",
    ],
    [
      "same currency",
      ngnPayoutQuote({ targetCurrency: "BTCSAT", paymentCurrency: "BTCSAT" }),
      "Unsupported currency pair: BTCSAT → BTCSAT",
    ],
    [
      "wrong method",
      ngnPayoutQuote({ paymentMethod: "BANKTRANSFER" }),
      "Invalid payment method: BTCSAT quotes are paid by LIGHTNING",
    ],
    [
      "unknown enum",
      ngnPayoutQuote({ sourceCurrency: "ETH" }),
      "sourceCurrency: must be one of BTCSAT, NGNKOBO",
    ],
    [
      "no beneficiary",
      ngnPayoutQuote({ beneficiary: undefined }),
      "beneficiary is required for a payout quote (or send autopayout: false)",
    ],
    [
      "short account",
      ngnPayoutQuote({ beneficiary: { ...NGN_BENEFICIARY, bankAccountNumber: "123456789" } }),
      "beneficiary.bankAccountNumber: must be exactly 10 digits",
    ],
    [
      "long account",
      ngnPayoutQuote({ beneficiary: { ...NGN_BENEFICIARY, bankAccountNumber: "01234567890" } }),
      "beneficiary.bankAccountNumber: must be exactly 10 digits",
    ],
    [
      "unknown bank",
      ngnPayoutQuote({ beneficiary: { ...NGN_BENEFICIARY, bankCode: "999999" } }),
      "Invalid bank code",
    ],
    [
      "missing name",
      ngnPayoutQuote({ beneficiary: { ...NGN_BENEFICIARY, bankAccountName: undefined } }),
      "beneficiary.bankAccountName is required",
    ],
    [
      "NGN minimum",
      ngnPayoutQuote({ amount: 199_999 }),
      "Amount too small: the minimum NGN payout is 2000 NGN (200000 kobo)",
    ],
    ["zero", ngnPayoutQuote({ amount: 0 }), "amount: must be greater than 0"],
    ["negative string", ngnPayoutQuote({ amount: "-5" }), /^amount: must be a positive integer/],
    [
      "KES phone",
      {
        amount: 100_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "KESCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "BTCSAT",
        autopayout: true,
        beneficiary: { identifierType: "paytophone", identifiers: { phoneNumber: "0712345678" } },
      },
      "beneficiary.identifiers.phoneNumber: must be a Kenyan number in international format: +254 then 9 digits",
    ],
    [
      "KES mode",
      {
        amount: 100_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "KESCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "BTCSAT",
        autopayout: true,
        beneficiary: { identifierType: "paytowallet", identifiers: {} },
      },
      "beneficiary.identifierType: must be one of paytophone, paytobill, paytotill",
    ],
    [
      "KES till missing",
      {
        amount: 100_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "KESCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "BTCSAT",
        autopayout: true,
        beneficiary: { identifierType: "paytotill", identifiers: {} },
      },
      "beneficiary.identifiers: tillNumber (or accountNumber) is required for paytotill",
    ],
    [
      "KES minimum",
      {
        amount: 25_999,
        sourceCurrency: "BTCSAT",
        targetCurrency: "KESCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "KESCENT",
        autopayout: true,
        beneficiary: KES_PHONE,
      },
      "Amount too small: the minimum KES payout is the equivalent of 2 USD (26000 minor units = 260.00 KES)",
    ],
    [
      "ZAR minimum",
      {
        amount: 3_599,
        sourceCurrency: "BTCSAT",
        targetCurrency: "ZARCENT",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "ZARCENT",
        autopayout: true,
        beneficiary: { name: "R", bankName: "FNB", bankAccountNumber: "1352900000" },
      },
      "Amount too small: the minimum ZAR payout is the equivalent of 2 USD (3600 minor units = 36.00 ZAR)",
    ],
    [
      "GHS phone",
      {
        amount: 50_000,
        sourceCurrency: "BTCSAT",
        targetCurrency: "GHSPESEWA",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "GHSPESEWA",
        autopayout: true,
        beneficiary: {
          identifierType: "MTN",
          identifiers: { phoneNumber: "+254790000000", accountName: "M" },
        },
      },
      "beneficiary.identifiers.phoneNumber: must be a Ghanaian number in international format: +233 then 9 digits",
    ],
    [
      "on-chain minimum",
      onchainQuote({ amount: 5_999 }),
      "Amount too small: the minimum on-chain purchase is 6000 sats",
    ],
    [
      "on-chain speed",
      onchainQuote({ speed: undefined }),
      "speed is required for on-chain quotes (slow, medium or fast)",
    ],
    ["bad speed", onchainQuote({ speed: "warp" }), "speed: must be one of slow, medium, fast"],
    [
      "mainnet address",
      onchainQuote({ beneficiary: { onChainAddress: MAINNET_ADDRESS } }),
      "beneficiary.onChainAddress: must be a signet/testnet Bitcoin address (tb1…, m…, n… or 2…)",
    ],
    [
      "garbage address",
      onchainQuote({ beneficiary: { onChainAddress: "tb1qnotanaddress" } }),
      /^beneficiary.onChainAddress: must be a signet\/testnet/,
    ],
    [
      "two destinations",
      onchainQuote({ beneficiary: { onChainAddress: TESTNET_ADDRESS, lnAddress: "a@b.co" } }),
      "beneficiary: must contain exactly one of onChainAddress, lnInvoice, lnAddress",
    ],
    ["beneficiary not an object", ngnPayoutQuote({ beneficiary: "0149200000" }), /^beneficiary: /],
  ];

  it.each(cases)("%s → 400", async (_name, body, message) => {
    expectBadRequest(await quote(body), message);
  });

  it("accepts exactly the minimums", async () => {
    expect((await quote(ngnPayoutQuote({ amount: 200_000 }))).status).toBe(200);
    expect(
      (
        await quote({
          amount: 26_000,
          sourceCurrency: "BTCSAT",
          targetCurrency: "KESCENT",
          paymentMethod: "LIGHTNING",
          paymentCurrency: "KESCENT",
          autopayout: true,
          beneficiary: KES_PHONE,
        })
      ).status,
    ).toBe(200);
    expect((await quote(onchainQuote({ amount: 6_000 }))).status).toBe(200);
  });

  it("applies prices changed at runtime to new quotes", async () => {
    await api.control("POST", "/_sandbox/prices", { btcUsd: 50_000 });
    const data = (await quote(ngnPayoutQuote())).body.data;
    expect(data.exchangeRate).toBe(75_000_000);
    expect(data.amountInSourceCurrency).toBeGreaterThan(13_000);
  });
});
