import { afterEach, describe, expect, it } from "vitest";
import type { SandboxOptions } from "#src/standins/sandbox/index.js";
import {
  type Api,
  type Json,
  NGN_BENEFICIARY,
  ngnPayoutQuote,
  openSandbox,
  type Receiver,
  signatureValid,
  startReceiver,
  waitFor,
  waitForWebhooks,
} from "./harness.ts";

/** Webhook registration, signing, retries, ordering, the duplicate fault, and API faults. */

let api: Api | undefined;
let receiver: Receiver | undefined;

async function setup(options: SandboxOptions = {}, register = true) {
  receiver = await startReceiver();
  api = await openSandbox({ ...options, webhookUrl: register ? receiver.url : undefined });
  return { api, receiver };
}
afterEach(async () => {
  await api?.sandbox.close();
  await receiver?.close();
  api = undefined;
  receiver = undefined;
});

async function log(sandbox: Api, event?: string): Promise<Json[]> {
  return (await sandbox.control("GET", `/_sandbox/webhooks${event ? `?event=${event}` : ""}`)).body.data;
}

describe("registration and ping", () => {
  it("registers with POST /webhook/register, pings signed with the new secret, and shows it in the profile", async () => {
    const { api, receiver } = await setup({}, false);
    expect((await api.post("/webhook/test")).body).toEqual({
      status: "error",
      message: "No webhook registered: use POST /webhook/register",
    });
    expect((await api.call("PUT", "/webhook", { url: receiver.url })).status).toBe(404);
    const reply = await api.post("/webhook/register", { url: receiver.url, secret: "whsec_mine" });
    expect(reply.body).toEqual({
      status: "ok",
      data: {
        id: expect.stringMatching(/^wh_/),
        url: receiver.url,
        isActive: true,
        createdAt: expect.any(String),
      },
    });
    const [ping] = await waitForWebhooks(receiver, 1);
    expect(ping?.payload).toEqual({
      event: "ping",
      data: { message: "This is a test webhook event", timestamp: expect.any(String) },
    });
    expect(signatureValid(ping!, "whsec_mine")).toBe(true);
    expect(ping?.headers["content-type"]).toBe("application/json");
    const profile = (await api.get("/user")).body.data.account.webhook;
    expect(profile).toMatchObject({ url: receiver.url, secret: "whsec_mine", isActive: true });
    expect(api.sandbox.webhookSecret).toBe("whsec_mine");

    expect((await api.get("/webhook")).body.data).toMatchObject({ url: receiver.url, isActive: true });
    const updated = await api.call("PUT", "/webhook", { url: `${receiver.url}?v=2` });
    expect(updated.body.data).toMatchObject({
      url: `${receiver.url}?v=2`,
      isActive: true,
      updatedAt: expect.any(String),
    });
    expect((await api.post("/webhook/test")).body).toMatchObject({
      status: "ok",
      message: "Test webhook sent",
      data: { event: "ping" },
    });
    const hooks = await waitForWebhooks(receiver, 2);
    expect(signatureValid(hooks[1]!, "whsec_mine")).toBe(true);
    expect((await api.post("/webhook/register", { url: "not a url" })).body.message).toBe(
      "url: must be an http(s) URL",
    );
  });

  it("logs events with no webhook registered without sending them", async () => {
    const { api } = await setup({}, false);
    const quote = (await api.post("/quote", ngnPayoutQuote())).body.data;
    await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.id });
    const entries = await log(api);
    expect(entries.map((entry) => [entry.event, entry.status, entry.url])).toEqual([
      ["payment.received", "no-webhook", null],
      ["payment.sent", "no-webhook", null],
    ]);
    expect(entries[0].signature).toMatch(/^[0-9a-f]{64}$/);
    expect((await api.control("DELETE", "/_sandbox/webhooks")).status).toBe(200);
    expect(await log(api)).toEqual([]);
  });
});

describe("delivery", () => {
  it("retries non-2xx with backoff on the sandbox clock until delivered", async () => {
    const { api, receiver } = await setup();
    receiver.plan = [500, 503];
    await api.post("/webhook/test");
    await waitFor("first attempt", async () => (await log(api))[0]?.attempts.length === 1);
    expect((await log(api))[0]).toMatchObject({ status: "retrying", responseCodes: [500], delivered: false });
    await api.control("POST", "/_sandbox/clock/advance", { ms: 1_000 });
    await waitFor("second attempt", async () => (await log(api))[0]?.attempts.length === 2);
    await api.control("POST", "/_sandbox/clock/advance", { ms: 5_000 });
    const [entry] = await waitFor("delivered", async () => {
      const entries = await log(api);
      return entries[0]?.delivered ? entries : undefined;
    });
    expect(entry.responseCodes).toEqual([500, 503, 200]);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((hook) => hook.raw)).size).toBe(1);
    expect(new Set(receiver.received.map((hook) => hook.headers["x-mavapay-signature"])).size).toBe(1);
  });

  it("treats a timeout as a failure and gives up after the last backoff step", async () => {
    const { api, receiver } = await setup({ webhookTimeoutMs: 200, webhookBackoffMs: [1_000] });
    receiver.plan = ["hang", 500];
    await api.post("/webhook/test");
    await waitFor("timed-out attempt", async () => (await log(api))[0]?.attempts.length === 1);
    expect((await log(api))[0].attempts[0]).toMatchObject({
      statusCode: null,
      error: "timeout after 200 ms",
    });
    await api.control("POST", "/_sandbox/clock/advance", { ms: 1_000 });
    const [entry] = await waitFor("gave up", async () => {
      const entries = await log(api);
      return entries[0]?.status === "failed" ? entries : undefined;
    });
    expect(entry.responseCodes).toEqual([null, 500]);
    expect(entry.nextAttemptAt).toBeNull();
  });

  it("keeps events in order: a later event waits for the earlier one's first attempt", async () => {
    const { api, receiver } = await setup({ webhookTimeoutMs: 300 });
    receiver.plan = ["hang"];
    const quote = (await api.post("/quote", ngnPayoutQuote())).body.data;
    await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.id });
    await waitForWebhooks(receiver, 1);
    const whileHanging = await log(api, "payment.sent");
    expect(whileHanging[0]).toMatchObject({ status: "queued", attempts: [] });
    await waitForWebhooks(receiver, 2);
    expect(receiver.received.map((hook) => hook.event)).toEqual(["payment.received", "payment.sent"]);
    await api.control("POST", "/_sandbox/clock/advance", { ms: 1_000 });
    const hooks = await waitForWebhooks(receiver, 3);
    expect(hooks[2]?.event).toBe("payment.received");
  });

  it("sends duplicates under the duplicate-webhooks fault", async () => {
    const { api, receiver } = await setup();
    const fault = await api.control("POST", "/_sandbox/faults", { mode: "duplicate-webhooks", times: 1 });
    expect(fault.body.data).toMatchObject({ mode: "duplicate-webhooks", remaining: 1 });
    await api.post("/webhook/test");
    const [first, second] = await waitForWebhooks(receiver, 2);
    expect(first?.raw).toBe(second?.raw);
    const entries = await log(api);
    expect(entries[1].duplicateOf).toBe(entries[0].id);
    await api.post("/webhook/test");
    await waitForWebhooks(receiver, 3);
    expect(await log(api)).toHaveLength(3);
  });
});

describe("API faults", () => {
  it("answers 500 and 429 the requested number of times without side effects", async () => {
    const { api } = await setup();
    await api.control("POST", "/_sandbox/faults", { endpoint: "POST /quote", mode: "500", times: 2 });
    await api.control("POST", "/_sandbox/faults", { endpoint: "GET /api/v1/user", mode: "429", times: 1 });
    for (let index = 0; index < 2; index += 1) {
      const reply = await api.post("/quote", ngnPayoutQuote());
      expect(reply.status).toBe(500);
      expect(reply.body.status).toBe("error");
    }
    expect((await api.get("/order/all")).body.data).toHaveLength(0);
    expect((await api.post("/quote", ngnPayoutQuote())).status).toBe(200);
    const limited = await api.get("/user");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await api.get("/user")).status).toBe(200);
    expect((await api.control("GET", "/_sandbox/faults")).body.data).toEqual([]);
  });

  it("hangs a request until the client gives up", async () => {
    const { api } = await setup();
    await api.control("POST", "/_sandbox/faults", { endpoint: "GET /wallet", mode: "hang" });
    await expect(
      fetch(`${api.sandbox.baseUrl}/wallet`, {
        headers: { "X-API-KEY": api.sandbox.apiKey },
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    expect((await api.get("/wallet")).status).toBe(200);
  });

  it("500-after processes the request and still answers 500", async () => {
    const { api, receiver } = await setup();
    await api.control("POST", "/_sandbox/faults", { endpoint: "POST /withdraw", mode: "500-after" });
    const reply = await api.post("/withdraw", {
      amount: "100000",
      currency: "NGN",
      beneficiary: NGN_BENEFICIARY,
    });
    expect(reply.status).toBe(500);
    expect((await api.get("/wallet?currency=NGN")).body.data[0].balance).toBe(49_900_000);
    await waitForWebhooks(receiver, 1, ["payment.sent"]);
  });

  it("validates fault definitions", async () => {
    const { api } = await setup();
    expect(
      (await api.control("POST", "/_sandbox/faults", { endpoint: "quote", mode: "500" })).body.message,
    ).toBe('endpoint must look like "POST /quote" (method, space, path)');
    expect(
      (await api.control("POST", "/_sandbox/faults", { endpoint: "POST /quote", mode: "teapot" })).status,
    ).toBe(400);
    expect(
      (await api.control("POST", "/_sandbox/faults", { endpoint: "POST /quote", mode: "500", times: 0 }))
        .status,
    ).toBe(400);
    await api.control("POST", "/_sandbox/faults", { endpoint: "POST /quote", mode: "500", times: 3 });
    expect((await api.control("DELETE", "/_sandbox/faults")).status).toBe(200);
    expect((await api.post("/quote", ngnPayoutQuote())).status).toBe(200);
  });
});
