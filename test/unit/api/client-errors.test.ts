import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi, type PayoutApi, PayoutApiError } from "#src/api/index.js";
import { createLogger } from "#src/log/logger.js";
import { freePort } from "#src/standins/local/redis-server.js";
import {
  type FakeApi,
  fail,
  hang,
  json,
  ok,
  raw,
  reset,
  sequence,
  stallBody,
  startFakeApi,
} from "./fake-api.ts";
import { notesData, notesFixture } from "./fixtures/load.ts";
import * as spec from "./fixtures/spec-shapes.ts";

const API_KEY = "key-4f1c9e0a7b3d2e8f6a5c";
const ATTEMPTS = 3;
const ngnBeneficiary = notesFixture<Record<string, Record<string, unknown>>>("beneficiaries").ngn as {
  bankAccountNumber: string;
  bankAccountName: string;
  bankCode: string;
  bankName: string;
};
const quoteRequest = {
  amount: 1000000,
  sourceCurrency: "BTCSAT",
  targetCurrency: "NGNKOBO",
  paymentMethod: "LIGHTNING",
  paymentCurrency: "NGNKOBO",
  autopayout: true,
  beneficiary: ngnBeneficiary,
} as const;

function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { lines, logger: createLogger({ level: "debug", pretty: false, destination }) };
}

const log = capturedLogger();
let fake: FakeApi;
let api: PayoutApi;

beforeAll(async () => {
  fake = await startFakeApi();
  api = createPayoutApi({
    baseUrl: fake.baseUrl,
    apiKey: API_KEY,
    logger: log.logger,
    // Short timeouts so hanging answers end quickly; nothing below asserts a duration.
    timeouts: { connectMs: 2_000, headersMs: 300, bodyMs: 300 },
    retry: { attempts: ATTEMPTS, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 1_000 },
  });
});
afterEach(() => {
  fake.reset();
  log.lines.length = 0;
});
afterAll(async () => {
  await api.close();
  await fake.close();
});

async function failure(promise: Promise<unknown>): Promise<PayoutApiError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(PayoutApiError);
  return caught as PayoutApiError;
}

describe("HTTP errors map to kinds", () => {
  it.each([
    [401, "Invalid API key provided.", "auth"],
    [403, "Forbidden", "auth"],
    [400, "Amount too small", "validation"],
    [404, "Order not found", "not_found"],
    [405, "Method not allowed", "validation"],
  ] as const)("%i → %s", async (status, message, kind) => {
    fake.route("POST", "/quote", fail(status, message));
    const error = await failure(api.createQuote(quoteRequest));
    expect(error).toMatchObject({
      kind,
      status,
      apiMessage: message,
      endpoint: "POST /quote",
      outcomeUnknown: false,
    });
    expect(error.message).toContain(message);
    expect(fake.count("POST", "/quote")).toBe(1);
  });

  it("429 carries Retry-After; a POST /quote is not retried", async () => {
    fake.route("POST", "/quote", fail(429, "Rate limit exceeded", { "retry-after": "7" }));
    const error = await failure(api.createQuote(quoteRequest));
    expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: 7000 });
    expect(fake.count("POST", "/quote")).toBe(1);
  });

  it("a GET waits out a short Retry-After and succeeds", async () => {
    fake.route(
      "GET",
      "/price",
      sequence(1, fail(429, "Rate limit exceeded", { "retry-after": "0" }), ok(spec.price)),
    );
    await expect(api.getPrice("NGN")).resolves.toMatchObject({ currency: "NGN" });
    expect(fake.count("GET", "/price")).toBe(2);
  });

  it("a GET does not wait out a Retry-After beyond the limit", async () => {
    fake.route("GET", "/price", fail(429, "Rate limit exceeded", { "retry-after": "120" }));
    const error = await failure(api.getPrice("NGN"));
    expect(error).toMatchObject({ kind: "rate_limited", retryAfterMs: 120_000 });
    expect(fake.count("GET", "/price")).toBe(1);
  });

  it("500 on a GET is retried with backoff until it works", async () => {
    fake.route("GET", "/order", sequence(2, fail(500, "Internal error"), ok(spec.singleOrder)));
    await expect(api.getOrder("63493-3037")).resolves.toMatchObject({ orderId: "63493-3037" });
    expect(fake.count("GET", "/order")).toBe(3);
  });

  it("500 on a GET gives up after the configured attempts", async () => {
    fake.route("GET", "/order/all", fail(500, "Internal error"));
    const error = await failure(api.listOrders());
    expect(error).toMatchObject({ kind: "server", status: 500, apiMessage: "Internal error" });
    expect(fake.count("GET", "/order/all")).toBe(ATTEMPTS);
  });

  it("500 on POST /withdraw is never retried and leaves the outcome unknown", async () => {
    fake.route("POST", "/withdraw", fail(500, "Internal error"));
    const error = await failure(api.withdrawNgn({ amount: 200000, beneficiary: ngnBeneficiary }));
    expect(error).toMatchObject({ kind: "server", outcomeUnknown: true });
    expect(fake.count("POST", "/withdraw")).toBe(1);
  });

  it("PUT /webhook is idempotent and retried; POST /paymentlink is not", async () => {
    fake.route(
      "PUT",
      "/webhook",
      sequence(1, fail(500, "Internal error"), ok(notesData("webhook-register-response"))),
    );
    await expect(
      api.updateWebhook({ url: "https://bot.example.com/hook", secret: "s" }),
    ).resolves.toMatchObject({
      isActive: true,
    });
    expect(fake.count("PUT", "/webhook")).toBe(2);
    fake.route("POST", "/paymentlink", fail(500, "Internal error"));
    const error = await failure(
      api.createPaymentLink({
        name: "Shop",
        amount: 2000000,
        beneficiary: { onChainAddress: "tb1qexample" },
      }),
    );
    expect(error).toMatchObject({ kind: "server", outcomeUnknown: true });
    expect(fake.count("POST", "/paymentlink")).toBe(1);
  });

  it('a 200 with "status":"error" is an error', async () => {
    fake.route("GET", "/bank/name-enquiry", (_request, response) =>
      json(response, 200, { status: "error", message: "Invalid account number or bank code" }),
    );
    const error = await failure(api.nameEnquiry({ accountNumber: "0123456789", bankCode: "000013" }));
    expect(error).toMatchObject({
      kind: "validation",
      status: 200,
      apiMessage: "Invalid account number or bank code",
    });
  });

  it('a 200 with "status":"error" about the rate limit reads as rate_limited', async () => {
    fake.route("GET", "/bank/name-enquiry", (_request, response) =>
      json(response, 200, { status: "error", message: "Rate limit exceeded" }),
    );
    const error = await failure(api.nameEnquiry({ accountNumber: "0123456789", bankCode: "000013" }));
    expect(error.kind).toBe("rate_limited");
  });
});

describe("unreadable answers", () => {
  it("malformed JSON in a 200 is invalid_response", async () => {
    fake.route("GET", "/user", raw(200, "application/json", '{"status":"ok","data":{'));
    const error = await failure(api.getUser());
    expect(error).toMatchObject({ kind: "invalid_response", status: 200 });
    expect(error.message).toContain("malformed JSON");
    expect(fake.count("GET", "/user")).toBe(1);
  });

  it("an HTML error page from a proxy is a server error that says so", async () => {
    fake.route("GET", "/wallet", raw(502, "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"));
    const error = await failure(api.getWallets());
    expect(error).toMatchObject({ kind: "server", status: 502, apiMessage: undefined });
    expect(error.message).toContain("HTML page");
    expect(fake.count("GET", "/wallet")).toBe(ATTEMPTS);
  });

  it("an HTML page with 200 is invalid_response, and after a POST the outcome is unknown", async () => {
    fake.route("POST", "/withdraw/btc", raw(200, "text/html", "<html>maintenance</html>"));
    const error = await failure(api.withdrawBtc({ invoice: "lntbs1..." }));
    expect(error).toMatchObject({ kind: "invalid_response", outcomeUnknown: true });
    expect(fake.count("POST", "/withdraw/btc")).toBe(1);
  });

  it("data that does not fit the schema is invalid_response naming the path", async () => {
    fake.route(
      "POST",
      "/quote",
      ok({ ...(notesData("quote-btc-ngn-lightning") as object), amountInSourceCurrency: 6016.5 }),
    );
    const error = await failure(api.createQuote(quoteRequest));
    expect(error.kind).toBe("invalid_response");
    expect(error.message).toContain("amountInSourceCurrency");
  });

  it("an unexpected envelope status is invalid_response", async () => {
    fake.route("GET", "/user", (_request, response) => json(response, 200, { status: "weird", data: {} }));
    expect((await failure(api.getUser())).kind).toBe("invalid_response");
  });
});

describe("timeouts and broken connections", () => {
  it("a GET that never answers times out after each attempt", async () => {
    fake.route("GET", "/order/all", hang);
    const error = await failure(api.listOrders());
    expect(error).toMatchObject({ kind: "timeout", status: undefined, outcomeUnknown: false });
    expect(fake.count("GET", "/order/all")).toBe(ATTEMPTS);
  });

  it("POST /withdraw that never answers is not retried and its outcome is unknown", async () => {
    fake.route("POST", "/withdraw", hang);
    const error = await failure(api.withdrawNgn({ amount: 200000, beneficiary: ngnBeneficiary }));
    expect(error).toMatchObject({ kind: "timeout", outcomeUnknown: true });
    expect(fake.count("POST", "/withdraw")).toBe(1);
  });

  it("a body that stalls halfway times out", async () => {
    fake.route("GET", "/user", stallBody);
    const error = await failure(api.getUser());
    expect(error.kind).toBe("timeout");
    expect(fake.count("GET", "/user")).toBe(ATTEMPTS);
  });

  it("a reset connection on a GET is retried until it works", async () => {
    fake.route("GET", "/wallet", sequence(1, reset, ok(spec.wallets)));
    await expect(api.getWallets()).resolves.toHaveLength(3);
    expect(fake.count("GET", "/wallet")).toBe(2);
  });

  it.each([
    [
      "POST",
      "/withdraw",
      (client: PayoutApi) => client.withdrawNgn({ amount: 200000, beneficiary: ngnBeneficiary }),
    ],
    ["POST", "/withdraw/btc", (client: PayoutApi) => client.withdrawBtc({ invoice: "lntbs1..." })],
    ["POST", "/quote", (client: PayoutApi) => client.createQuote(quoteRequest)],
  ] as const)("a reset connection on %s %s is never retried", async (method, path, call) => {
    fake.route(method, path, reset);
    const error = await failure(call(api));
    expect(error).toMatchObject({ kind: "network", outcomeUnknown: true });
    expect(fake.count(method, path)).toBe(1);
  });

  it("a refused connection is retried even for POST /quote, since nothing was sent", async () => {
    const port = await freePort();
    const local = capturedLogger();
    const offline = createPayoutApi({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      apiKey: API_KEY,
      logger: local.logger,
      retry: { attempts: ATTEMPTS, baseDelayMs: 1, maxDelayMs: 5 },
    });
    try {
      const error = await failure(offline.createQuote(quoteRequest));
      expect(error).toMatchObject({ kind: "network", outcomeUnknown: false, endpoint: "POST /quote" });
      expect(error.message).toContain("could not connect");
      const attempts = local.lines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === "payout api call failed");
      expect(attempts.map((entry) => entry.attempt)).toEqual([1, 2, 3]);
    } finally {
      await offline.close();
    }
  });
});

describe("secrets stay out of errors and logs", () => {
  it("an API message echoing the key is redacted", async () => {
    fake.route("GET", "/user", fail(401, `Invalid API key provided: ${API_KEY}`));
    const error = await failure(api.getUser());
    expect(error.kind).toBe("auth");
    expect(error.message).not.toContain(API_KEY);
    expect(error.apiMessage).not.toContain(API_KEY);
    expect(error.apiMessage).toContain("[redacted]");
  });

  it("debug logs name the call, status and duration, never the key, account or phone numbers", async () => {
    fake.route("GET", "/bank/name-enquiry", ok(notesData("name-enquiry-long")));
    fake.route("POST", "/withdraw", fail(400, "Name Mismatch for 0087241555"));
    await api.nameEnquiry({ accountNumber: "0123456789", bankCode: "000013" });
    const error = await failure(api.withdrawNgn({ amount: 200000, beneficiary: ngnBeneficiary }));
    expect(error.message).not.toContain("0087241555");
    expect(error.apiMessage).toBe("Name Mismatch for ******1555");
    const entries = log.lines.map((line) => JSON.parse(line));
    expect(entries).toContainEqual(
      expect.objectContaining({
        endpoint: "GET /bank/name-enquiry",
        status: 200,
        attempt: 1,
        durationMs: expect.any(Number),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ endpoint: "POST /withdraw", status: 400, kind: "validation" }),
    );
    const all = log.lines.join("");
    for (const secret of [API_KEY, "0123456789", "0087241555"]) expect(all).not.toContain(secret);
  });
});
