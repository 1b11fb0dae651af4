import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi, type PayoutApi, PayoutApiError } from "#src/api/index.js";
import { type FakeApi, json, ok, startFakeApi } from "./fake-api.ts";
import { notesData, notesFixture } from "./fixtures/load.ts";
import * as spec from "./fixtures/spec-shapes.ts";

const API_KEY = "test-key-0123456789abcdef";
const beneficiaries = notesFixture<Record<string, Record<string, unknown>>>("beneficiaries");
const ngnBeneficiary = beneficiaries.ngn as {
  bankAccountNumber: string;
  bankAccountName: string;
  bankCode: string;
  bankName: string;
};

let fake: FakeApi;
let api: PayoutApi;

beforeAll(async () => {
  fake = await startFakeApi();
  // A trailing slash on the base URL is tolerated.
  api = createPayoutApi({
    baseUrl: `${fake.baseUrl}/`,
    apiKey: API_KEY,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
});
afterEach(() => fake.reset());
afterAll(async () => {
  await api.close();
  await fake.close();
});

interface EndpointCase {
  name: string;
  method: "GET" | "POST" | "PUT";
  path: string;
  data: unknown;
  call: (api: PayoutApi) => Promise<unknown>;
  query?: Record<string, string>;
  body?: unknown;
  check: (result: unknown) => void;
}

const quoteRequest = {
  amount: 1000000,
  sourceCurrency: "BTCSAT",
  targetCurrency: "NGNKOBO",
  paymentMethod: "LIGHTNING",
  paymentCurrency: "NGNKOBO",
  autopayout: true,
  customerReference: "tg-42",
  beneficiary: ngnBeneficiary,
} as const;

const cases: EndpointCase[] = [
  {
    name: "listOrders",
    method: "GET",
    path: "/order/all",
    data: [spec.orderListItem],
    call: (client) => client.listOrders(),
    query: {},
    check: (result) => expect(result).toMatchObject([{ orderId: "63493-3037", amount: "3000.00" }]),
  },
  {
    name: "getOrder",
    method: "GET",
    path: "/order",
    data: spec.singleOrder,
    call: (client) => client.getOrder("63493-3037"),
    query: { id: "63493-3037" },
    check: (result) => expect(result).toMatchObject({ paymentCollectionMethod: "LIGHTNING" }),
  },
  {
    name: "getTransactions (object answer)",
    method: "GET",
    path: "/transaction",
    data: spec.transactionDetail,
    call: (client) => client.getTransactions({ orderId: "63493-3037" }),
    query: { orderId: "63493-3037" },
    check: (result) => expect(result).toMatchObject([{ id: spec.transactionDetail.id }]),
  },
  {
    name: "getTransactions (array answer)",
    method: "GET",
    path: "/transaction",
    data: [spec.transactionNgn, { ...spec.transactionNgn, id: "second", type: "DEPOSIT" }],
    call: (client) => client.getTransactions({ hash: "b".repeat(64) }),
    query: { hash: "b".repeat(64) },
    check: (result) => expect(result).toHaveLength(2),
  },
  {
    name: "getWallets",
    method: "GET",
    path: "/wallet",
    data: spec.wallets,
    call: (client) => client.getWallets({ currency: "BTC" }),
    query: { currency: "BTC" },
    check: (result) =>
      expect(result).toMatchObject([{ balance: 500000 }, { balance: 21000 }, { balance: 0 }]),
  },
  {
    name: "getBankAccounts",
    method: "GET",
    path: "/bankaccount",
    data: [spec.bankAccount],
    call: (client) => client.getBankAccounts({ walletId: "w-ngn", currency: "NGN" }),
    query: { walletId: "w-ngn", currency: "NGN" },
    check: (result) => expect(result).toMatchObject([{ bankName: "GLOBUS BANK" }]),
  },
  {
    name: "getUser",
    method: "GET",
    path: "/user",
    data: spec.userProfile,
    call: (client) => client.getUser(),
    query: {},
    check: (result) => expect(result).toMatchObject({ account: { settings: { language: "en" } } }),
  },
  {
    name: "createQuote",
    method: "POST",
    path: "/quote",
    data: notesData("quote-btc-ngn-lightning"),
    call: (client) => client.createQuote(quoteRequest),
    body: quoteRequest,
    check: (result) => expect(result).toMatchObject({ orderId: "56188-2561", amountInSourceCurrency: 6016 }),
  },
  {
    name: "withdrawNgn",
    method: "POST",
    path: "/withdraw",
    data: spec.transactionNgn,
    call: (client) => client.withdrawNgn({ amount: 100000, beneficiary: ngnBeneficiary }),
    body: { amount: "100000", currency: "NGN", beneficiary: ngnBeneficiary },
    check: (result) => expect(result).toMatchObject({ status: "PENDING", amount: 300000 }),
  },
  {
    name: "withdrawBtc",
    method: "POST",
    path: "/withdraw/btc",
    data: { ...spec.transactionNgn, currency: "BTC", amount: 2000 },
    call: (client) => client.withdrawBtc({ invoice: "lntbs20u1treasury", memo: "treasury" }),
    body: { invoice: "lntbs20u1treasury", memo: "treasury" },
    check: (result) => expect(result).toMatchObject({ currency: "BTC", amount: 2000 }),
  },
  {
    name: "listBanks",
    method: "GET",
    path: "/bank/bankcode",
    data: notesData("bank-list-ng"),
    call: (client) => client.listBanks("NG"),
    query: { country: "NG" },
    check: (result) =>
      expect(result).toEqual([{ bankName: "KUDA MICROFINANCE BANK", nipBankCode: "090267" }]),
  },
  {
    name: "listZaBanks",
    method: "GET",
    path: "/bank/bankcode",
    data: notesData("bank-list-za"),
    call: (client) => client.listZaBanks(),
    query: { country: "ZA" },
    check: (result) => expect(result).toContain("TYMEBANK"),
  },
  {
    name: "nameEnquiry",
    method: "GET",
    path: "/bank/name-enquiry",
    data: notesData("name-enquiry-long"),
    call: (client) => client.nameEnquiry({ accountNumber: "0123456789", bankCode: "000013" }),
    query: { accountNumber: "0123456789", bankCode: "000013" },
    check: (result) =>
      expect(result).toMatchObject({ accountName: "Oladeji Olaolu", accountNumber: "0123456789" }),
  },
  {
    name: "getPrice",
    method: "GET",
    path: "/price",
    data: spec.price,
    call: (client) => client.getPrice("KES"),
    query: { currency: "KES" },
    check: (result) => expect(result).toMatchObject({ btcPriceInUnitCurrency: 168375961.2972606 }),
  },
  {
    name: "createPaymentLink",
    method: "POST",
    path: "/paymentlink",
    data: notesData("payment-link-created"),
    call: (client) =>
      client.createPaymentLink({
        name: "Shop",
        description: "T-shirt",
        amount: 2000000,
        speed: "fast",
        beneficiary: { onChainAddress: "tb1qexampleaddress" },
        callbackUrl: "https://shop.example.com/paid",
      }),
    body: {
      name: "Shop",
      description: "T-shirt",
      type: "One_Time",
      addFeeToTotalCost: false,
      settlementCurrency: "BTC",
      settlementMethod: "ONCHAIN",
      speed: "fast",
      paymentCurrency: "NGN",
      paymentMethods: ["BANKTRANSFER"],
      beneficiary: { onChainAddress: "tb1qexampleaddress" },
      amount: 2000000,
      callbackUrl: "https://shop.example.com/paid",
    },
    check: (result) => expect(result).toMatchObject({ paymentRef: "9d1c20db-c46b-4a15-8233-1bb999e38195" }),
  },
  {
    name: "getPaymentLinkDetails",
    method: "GET",
    path: "/paymentlink/details",
    data: { paymentLinkDetails: spec.paymentLinkDetails },
    call: (client) => client.getPaymentLinkDetails(spec.paymentLinkDetails.id),
    query: { id: spec.paymentLinkDetails.id },
    check: (result) => expect(result).toMatchObject({ paymentLinkOrderId: "17454-1571" }),
  },
  {
    name: "getPaymentLinkOrders",
    method: "GET",
    path: "/paymentlink/orders",
    data: spec.paymentLinkWithOrders,
    call: (client) => client.getPaymentLinkOrders(spec.paymentLinkWithOrders.id),
    query: { id: spec.paymentLinkWithOrders.id },
    check: (result) => expect(result).toMatchObject({ amount: 2000000, orders: [{}, { status: "PENDING" }] }),
  },
  {
    name: "simulatePayIn",
    method: "POST",
    path: "/simulation/pay-in",
    data: notesData("simulation-response"),
    call: (client) => client.simulatePayIn({ currency: "NGN", orderId: "5466-3532", amount: 604300 }),
    body: { currency: "NGN", orderId: "5466-3532", amount: 604300 },
    check: (result) => expect(result).toBe("PayIn simulation successful"),
  },
  {
    name: "registerWebhook",
    method: "POST",
    path: "/webhook/register",
    data: notesData("webhook-register-response"),
    call: (client) =>
      client.registerWebhook({ url: "https://your-domain.com/webhook", secret: "your_webhook_secret" }),
    body: notesFixture("webhook-register-request"),
    check: (result) => expect(result).toMatchObject({ id: "wh_123456789", isActive: true }),
  },
  {
    name: "updateWebhook",
    method: "PUT",
    path: "/webhook",
    data: { ...(notesData("webhook-register-response") as object), updatedAt: "2024-03-22T15:30:00Z" },
    call: (client) =>
      client.updateWebhook({ url: "https://your-domain.com/webhook", secret: "your_webhook_secret" }),
    body: notesFixture("webhook-register-request"),
    check: (result) => expect(result).toMatchObject({ updatedAt: "2024-03-22T15:30:00Z" }),
  },
  {
    name: "testWebhook",
    method: "POST",
    path: "/webhook/test",
    data: { message: "Test webhook sent" },
    call: (client) => client.testWebhook(),
    body: {},
    check: (result) => expect(result).toEqual({ message: "Test webhook sent" }),
  },
];

describe("every endpoint", () => {
  it.each(cases)("$name → $method $path", async (endpoint) => {
    fake.route(endpoint.method, endpoint.path, ok(endpoint.data));
    const result = await endpoint.call(api);
    endpoint.check(result);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.method).toBe(endpoint.method);
    expect(request?.path).toBe(endpoint.path);
    if (endpoint.query) expect(request?.query).toEqual(endpoint.query);
    expect(request?.body).toEqual(endpoint.body);
    expect(request?.headers["x-api-key"]).toBe(API_KEY);
    expect(request?.headers.accept).toBe("application/json");
    if (endpoint.body !== undefined) expect(request?.headers["content-type"]).toBe("application/json");
  });

  it("covers the 16 spec endpoints and the 3 webhook routes", () => {
    const routes = new Set(cases.map((endpoint) => `${endpoint.method} ${endpoint.path}`));
    expect(routes.size).toBe(19);
  });
});

describe("answers the client must tolerate", () => {
  it('accepts the legacy "success" envelope', async () => {
    fake.route("GET", "/price", (_request, response) =>
      json(response, 200, { status: "success", data: spec.price }),
    );
    await expect(api.getPrice("NGN")).resolves.toMatchObject({ currency: "NGN" });
  });

  it("reads a 404 from GET /transaction as no transactions yet", async () => {
    fake.route("GET", "/transaction", (_request, response) =>
      json(response, 404, { status: "error", message: "Transaction not found" }),
    );
    await expect(api.getTransactions({ id: "nope" })).resolves.toEqual([]);
    expect(fake.count("GET", "/transaction")).toBe(1);
  });

  it("ping does one cheap GET /price?currency=NGN", async () => {
    fake.route("GET", "/price", ok(spec.price));
    await expect(api.ping()).resolves.toBeUndefined();
    expect(fake.requests.map((request) => [request.path, request.query])).toEqual([
      ["/price", { currency: "NGN" }],
    ]);
  });

  it("ping rejects without retrying when the API is unwell", async () => {
    fake.route("GET", "/price", (_request, response) =>
      json(response, 503, { status: "error", message: "down" }),
    );
    await expect(api.ping()).rejects.toMatchObject({ kind: "server", status: 503 });
    expect(fake.count("GET", "/price")).toBe(1);
  });
});

describe("requests refused before sending", () => {
  it.each([
    [
      "a 9-digit account number",
      (client: PayoutApi) => client.nameEnquiry({ accountNumber: "012345678", bankCode: "000013" }),
    ],
    ["a transaction query without a key", (client: PayoutApi) => client.getTransactions({})],
    [
      "a quote whose paymentCurrency is neither side",
      (client: PayoutApi) => client.createQuote({ ...quoteRequest, paymentCurrency: "KESCENT" }),
    ],
    [
      "a fractional withdrawal",
      (client: PayoutApi) => client.withdrawNgn({ amount: 100.5, beneficiary: ngnBeneficiary }),
    ],
    [
      "an NGN pay-in without amount",
      (client: PayoutApi) => client.simulatePayIn({ currency: "NGN", orderId: "1-2" }),
    ],
    [
      "a webhook URL that is not http(s)",
      (client: PayoutApi) => client.registerWebhook({ url: "ftp://x", secret: "s" }),
    ],
  ])("%s", async (_name, call) => {
    const error = await call(api).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PayoutApiError);
    expect(error).toMatchObject({ kind: "validation", status: undefined });
    expect(fake.requests).toHaveLength(0);
  });

  it("never echoes the refused values", async () => {
    const error = await api
      .nameEnquiry({ accountNumber: "98765432109", bankCode: "000013" })
      .catch((caught: unknown) => caught as Error);
    expect(error.message).toContain("accountNumber");
    expect(error.message).not.toContain("98765432109");
  });
});
