import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY } from "#src/standins/sandbox/index.js";
import { type Api, openSandbox } from "./harness.ts";

/** Auth, envelopes, routing errors, profile, wallets, banks, name enquiry and prices over real HTTP. */

let api: Api;
beforeAll(async () => {
  api = await openSandbox({ nameEnquiryPerMinute: 5 });
});
afterAll(() => api.sandbox.close());
beforeEach(async () => {
  expect((await api.control("POST", "/_sandbox/reset")).status).toBe(200);
});

describe("auth and envelopes", () => {
  it("uses the documented default key", () => {
    expect(api.sandbox.apiKey).toBe(DEFAULT_API_KEY);
    expect(api.sandbox.baseUrl).toBe(`${api.sandbox.origin}/api/v1`);
    expect(api.sandbox.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("answers 401 for a missing or wrong key, in any header case", async () => {
    const missing = await api.call("GET", "/user", undefined, { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ status: "error", message: expect.stringMatching(/API key is required/) });
    const wrong = await api.call("GET", "/user", undefined, { key: "sk_wrong" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ status: "error", message: "Invalid API key provided." });
    const lower = await fetch(`${api.sandbox.baseUrl}/user`, {
      headers: { "x-api-key": api.sandbox.apiKey },
    });
    expect(lower.status).toBe(200);
    const mixed = await fetch(`${api.sandbox.baseUrl}/user`, {
      headers: { "X-Api-Key": api.sandbox.apiKey },
    });
    expect(mixed.status).toBe(200);
  });

  it("serves /price, /price/ticker and /bank/bankcode without a key, as the real service does", async () => {
    expect((await api.call("GET", "/price?currency=NGN", undefined, { key: null })).status).toBe(200);
    expect((await api.call("GET", "/bank/bankcode?country=NG", undefined, { key: null })).status).toBe(200);
    const ticker = await api.call("GET", "/price/ticker?pair=BTCNGN", undefined, { key: null });
    expect(ticker.body.data).toMatchObject({
      pair: "BTCNGN",
      currency: "NGN",
      btcPriceInUnitCurrency: 150_000_000,
    });
    expect(
      (await api.call("GET", "/price/ticker?pair=BTC-KES", undefined, { key: null })).body.data.pair,
    ).toBe("BTCKES");
    expect((await api.call("GET", "/price/ticker?pair=ETHNGN", undefined, { key: null })).status).toBe(400);
    // Key-less routes ignore whatever key comes along.
    expect((await api.call("GET", "/bank/bankcode?country=NG", undefined, { key: "wrong" })).status).toBe(
      200,
    );
  });

  it("answers 404 for unknown routes and 405 for a wrong method", async () => {
    const unknown = await api.get("/nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: "error", message: "Route not found: GET /api/v1/nope" });
    const wrongMethod = await api.call("DELETE", "/quote");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
  });

  it("rejects malformed JSON, wrong types and missing fields with 400 and a precise message", async () => {
    const malformed = await api.call("POST", "/quote", undefined, { raw: "{amount: 1" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^Malformed JSON body/);
    const notObject = await api.post("/quote", [1, 2]);
    expect(notObject.status).toBe(400);
    expect(notObject.body.message).toBe("The body must be a JSON object");
    const empty = await api.call("POST", "/quote");
    expect(empty.status).toBe(400);
    const types = await api.post("/quote", { amount: 1.5, paymentCurrency: "DOGE", autopayout: "yes" });
    expect(types.status).toBe(400);
    expect(types.body.message).toContain("amount: must be a positive integer in minor units");
    expect(types.body.message).toContain(
      "paymentCurrency: must be one of BTCSAT, NGNKOBO, KESCENT, ZARCENT, GHSPESEWA",
    );
    expect(types.body.message).toContain("autopayout: must be true or false");
    const missing = await api.post("/quote", { sourceCurrency: "BTCSAT" });
    expect(missing.body.message).toBe("amount is required; paymentCurrency is required");
  });
});

describe("account", () => {
  it("returns the verified business profile with key, webhook and settings", async () => {
    const reply = await api.get("/user");
    expect(reply.status).toBe(200);
    const user = reply.body.data;
    expect(reply.body.status).toBe("ok");
    expect(user).toMatchObject({ emailVerified: true, kycInfo: { status: "APPROVED" } });
    expect(user.account).toMatchObject({
      type: "BUSINESS",
      status: "ACTIVE",
      apiKey: api.sandbox.apiKey,
      totalSatsExchanged: 0,
      webhook: { url: "", secret: "whsec_sandbox_local", isActive: false },
      // The real service's default (notes §2), not the spec's.
      settings: { autopayout: false, language: "EN", notification: { email: true, sms: false } },
    });
    expect(user.account.walletDetails).toMatchObject({ currency: "NGN", balance: "50000000" });
    expect(user.account.walletDetails.bankAccount).toMatchObject({ currency: "NGN", bankCode: "000017" });
  });

  it("lists the NGN, KES, BTC and USD wallets with filters", async () => {
    const all = (await api.get("/wallet")).body.data;
    expect(all.map((wallet: { currency: string }) => wallet.currency)).toEqual(["NGN", "KES", "BTC", "USD"]);
    expect(all[0]).toEqual({
      id: expect.any(String),
      accountId: expect.any(String),
      currency: "NGN",
      balance: 50_000_000,
    });
    expect((await api.get("/wallet?currency=BTC")).body.data).toEqual([
      expect.objectContaining({ balance: 5_000_000 }),
    ]);
    expect((await api.get(`/wallet?walletId=${all[1].id}`)).body.data).toEqual([all[1]]);
    const bad = await api.get("/wallet?currency=EUR");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("currency: must be one of NGN, KES, BTC, USD");
    expect((await api.get("/wallet?walletId=abc")).body.message).toBe("walletId: must be a UUID");
  });

  it("returns the NGN pay-in bank account", async () => {
    const reply = await api.get("/bankaccount?currency=NGN");
    expect(reply.body.data).toEqual([
      {
        bankName: "WEMA BANK",
        bankCode: "000017",
        bankAccountNumber: "8000000017",
        bankAccountName: "Sandbox Payouts Ltd",
        currency: "NGN",
        walletId: expect.any(String),
      },
    ]);
    expect((await api.get("/bankaccount?currency=KES")).status).toBe(400);
  });

  it("lets the control route change language, autopayout and balances", async () => {
    const reply = await api.control("POST", "/_sandbox/account", {
      language: "FR",
      autopayout: false,
      balances: { KES: 42 },
    });
    expect(reply.status).toBe(200);
    const user = (await api.get("/user")).body.data;
    expect(user.account.settings).toMatchObject({ language: "FR", autopayout: false });
    expect((await api.get("/wallet?currency=KES")).body.data[0].balance).toBe(42);
    expect((await api.control("POST", "/_sandbox/account", { language: "not a code" })).status).toBe(400);
  });
});

describe("banks and name enquiry", () => {
  it("lists 481 NG banks deduplicated by nipBankCode with verbatim names", async () => {
    const reply = await api.get("/bank/bankcode?country=NG");
    expect(reply.body.status).toBe("ok");
    expect(reply.body.message).toBe("all bank codes retrieved successfully");
    const registry = JSON.parse(
      readFileSync(new URL("../../src/standins/sandbox/data/banks.json", import.meta.url), "utf8"),
    );
    const seen = new Set<string>();
    const expected = registry
      .filter((entry: { nipBankCode: string }) => !seen.has(entry.nipBankCode) && seen.add(entry.nipBankCode))
      .map((entry: { bankName: string; nipBankCode: string }) => ({
        bankName: entry.bankName,
        nipBankCode: entry.nipBankCode,
      }));
    expect(reply.body.data).toHaveLength(481);
    expect(reply.body.data).toEqual(expected);
    expect(reply.body.data).toContainEqual({ bankName: "GTBANK PLC", nipBankCode: "000013" });
    const parallex = reply.body.data.filter((bank: { nipBankCode: string }) => bank.nipBankCode === "000030");
    expect(parallex).toHaveLength(1);
  });

  // The shared folder sits beside the team's checkouts; a clone elsewhere has only our copy to go by.
  const sharedRegistry = new URL("../../../shared/data/banks.json", import.meta.url);
  it.runIf(existsSync(sharedRegistry))("copies the shared registry verbatim", () => {
    const ours = readFileSync(new URL("../../src/standins/sandbox/data/banks.json", import.meta.url));
    const shared = readFileSync(sharedRegistry);
    expect(ours.equals(shared)).toBe(true);
  });

  it("lists ZA banks as plain strings and refuses other countries", async () => {
    const za = await api.get("/bank/bankcode?country=ZA");
    expect(za.body.data).toContain("CAPITEC BANK");
    expect(za.body.data).toHaveLength(17);
    expect(typeof za.body.data[0]).toBe("string");
    for (const query of ["?country=KE", ""]) {
      const reply = await api.get(`/bank/bankcode${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe("Invalid country code");
    }
  });

  it("answers name enquiries deterministically", async () => {
    const staging = await api.get("/bank/name-enquiry?accountNumber=0149200000&bankCode=000013");
    expect(staging.body).toMatchObject({
      status: "ok",
      message: "Bank account name verified successfully",
      data: { accountName: "OLADEJI OLAOLU", accountNumber: "0149200000", bankCode: "000013", kycLevel: "3" },
    });
    const first = await api.get("/bank/name-enquiry?accountNumber=0123456789&bankCode=000014");
    const again = await api.get("/bank/name-enquiry?accountNumber=0123456789&bankCode=000014");
    expect(first.body.data.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
    expect(again.body.data.accountName).toBe(first.body.data.accountName);
    const cases: Array<[string, string, string]> = [
      ["0000000000", "000013", "Invalid account number"],
      ["1111111111", "000013", "Account verification failed"],
      ["0123456789", "999999", "Invalid bank code"],
      ["12345", "000013", "Invalid account number: it must be exactly 10 digits"],
    ];
    await api.control("POST", "/_sandbox/reset");
    for (const [account, bank, message] of cases) {
      const reply = await api.get(`/bank/name-enquiry?accountNumber=${account}&bankCode=${bank}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ status: "error", message });
    }
  });

  it("rate-limits name enquiry per minute with Retry-After, on the sandbox clock", async () => {
    const path = "/bank/name-enquiry?accountNumber=0149200000&bankCode=000013";
    for (let index = 0; index < 5; index += 1) expect((await api.get(path)).status).toBe(200);
    const limited = await api.get(path);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe("Rate limit exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await api.control("POST", "/_sandbox/clock/advance", { ms: 60_001 });
    expect((await api.get(path)).status).toBe(200);
    const raised = await api.control("POST", "/_sandbox/account", { nameEnquiryPerMinute: 1000 });
    expect(raised.body.data.limits).toEqual({ nameEnquiryPerMinute: 1000 });
    for (let index = 0; index < 10; index += 1) expect((await api.get(path)).status).toBe(200);
  });
});

describe("price", () => {
  it("prices NGN, KES, ZAR and GHS from the model with unit strings", async () => {
    const ngn = (await api.get("/price?currency=NGN")).body.data;
    expect(ngn).toEqual({
      currency: "NGN",
      timestamp: Math.floor(api.sandbox.now() / 1000),
      btcPriceInUnitCurrency: 150_000_000,
      unitPricePerSat: { amount: 1.5, currencyUnit: "NGNSAT" },
      unitPricePerUsd: { amount: 1500, currencyUnit: "NGNUSD" },
    });
    for (const [currency, perUsd] of [
      ["KES", 130],
      ["ZAR", 18],
      ["GHS", 12],
    ] as const) {
      const data = (await api.get(`/price?currency=${currency}`)).body.data;
      expect(data.unitPricePerUsd).toEqual({ amount: perUsd, currencyUnit: `${currency}USD` });
      expect(data.unitPricePerSat.currencyUnit).toBe(`${currency}SAT`);
    }
    const bad = await api.get("/price?currency=EUR");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Invalid currency: use one of NGN, KES, ZAR, GHS");
  });

  it("follows /_sandbox/prices", async () => {
    await api.control("POST", "/_sandbox/prices", { btcUsd: 50_000, usdRates: { NGN: 1600 } });
    expect((await api.get("/price?currency=NGN")).body.data.btcPriceInUnitCurrency).toBe(80_000_000);
    expect((await api.control("POST", "/_sandbox/prices", { btcUsd: -1 })).status).toBe(400);
  });
});
