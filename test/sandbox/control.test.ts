import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "#src/standins/local/redis-server.js";
import {
  type Api,
  ngnPayoutQuote,
  onchainQuote,
  openSandbox,
  type Receiver,
  startReceiver,
  waitFor,
} from "./harness.ts";

/** Control routes, start options and the standalone entry point. */

let api: Api | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await api?.sandbox.close();
  await receiver?.close();
  api = undefined;
  receiver = undefined;
});

describe("control routes", () => {
  it("reset restores the initial account, clock, data and webhook log", async () => {
    api = await openSandbox();
    const quote = (await api.post("/quote", ngnPayoutQuote())).body.data;
    await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.id });
    await api.control("POST", "/_sandbox/account", { balances: { NGN: 1 }, language: "SW" });
    await api.control("POST", "/_sandbox/clock/advance", { ms: 3_600_000 });
    await api.control("POST", "/_sandbox/faults", { endpoint: "GET /user", mode: "500" });
    const reset = await api.control("POST", "/_sandbox/reset");
    expect(reset.body.data.reset).toBe(true);
    expect((await api.get("/order/all")).body.data).toEqual([]);
    expect((await api.get("/user")).body.data.account.settings.language).toBe("EN");
    expect((await api.get("/wallet?currency=NGN")).body.data[0].balance).toBe(50_000_000);
    expect((await api.control("GET", "/_sandbox/webhooks")).body.data).toEqual([]);
    expect((await api.control("GET", "/_sandbox/clock")).body.data.offsetMs).toBe(0);
  });

  it("exposes state: quotes, orders, transactions with confirmations, scheduled work", async () => {
    api = await openSandbox();
    const quote = (await api.post("/quote", onchainQuote())).body.data;
    await api.post("/simulation/pay-in", {
      currency: "NGN",
      quoteId: quote.id,
      amount: quote.totalAmountInSourceCurrency,
    });
    const state = (await api.control("GET", "/_sandbox/state")).body.data;
    expect(state.quotes[0]).toMatchObject({
      id: quote.id,
      paid: true,
      speed: "fast",
      beneficiary: { kind: "onchain" },
    });
    expect(state.orders[0]).toMatchObject({ orderId: quote.orderId, status: "PAID" });
    expect(state.transactions.map((tx: { type: string }) => tx.type)).toEqual(["DEPOSIT", "WITHDRAWAL"]);
    expect(state.transactions[1].onchain).toMatchObject({ confirmations: 0, requiredConfirmations: 3 });
    expect(state.scheduled.some((task: { label: string }) => task.label.startsWith("confirmation"))).toBe(
      true,
    );
    expect(state.blockHeight).toBe(840_000);
    const mined = await api.control("POST", "/_sandbox/blocks/mine", {});
    expect(mined.body.data.height).toBe(840_001);
  });

  it("validates control bodies", async () => {
    api = await openSandbox();
    expect((await api.control("POST", "/_sandbox/clock/advance", { ms: -1 })).status).toBe(400);
    expect((await api.control("POST", "/_sandbox/clock/advance", {})).body.message).toBe("ms is required");
    expect((await api.control("POST", "/_sandbox/blocks/mine", { count: 0 })).status).toBe(400);
    expect((await api.control("POST", "/_sandbox/account", { balances: { NGN: -5 } })).status).toBe(400);
    expect((await api.control("GET", "/_sandbox/nope")).status).toBe(404);
  });

  it("honours start options: key, balances, prices and an injected base clock", async () => {
    let base = Date.parse("2026-01-01T00:00:00.000Z");
    api = await openSandbox({
      apiKey: "sk_custom",
      balances: { BTC: 7 },
      prices: { btcUsd: 120_000 },
      now: () => base,
    });
    expect(api.sandbox.apiKey).toBe("sk_custom");
    expect((await api.get("/wallet?currency=BTC")).body.data[0].balance).toBe(7);
    expect((await api.get("/price?currency=NGN")).body.data).toMatchObject({
      btcPriceInUnitCurrency: 180_000_000,
      timestamp: Date.parse("2026-01-01T00:00:00.000Z") / 1000,
    });
    const quote = (await api.post("/quote", ngnPayoutQuote())).body.data;
    expect(quote.expiry).toBe("2026-01-01T00:05:00.000Z");
    base += 5 * 60_000;
    // Real time alone (the base clock) also expires things; the next request runs what is due.
    expect((await api.get(`/order?id=${quote.orderId}`)).body.data.status).toBe("EXPIRED");
    expect(api.sandbox.advanceClock(60_000)).toBeGreaterThanOrEqual(0);
    expect(api.sandbox.now()).toBe(base + 60_000);
  });
});

describe("standalone", () => {
  it("serves on SANDBOX_PORT with SANDBOX_API_KEY, registers the webhook, and stops cleanly on SIGTERM", async () => {
    receiver = await startReceiver();
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", "src/standins/sandbox/standalone.ts"], {
      cwd: new URL("../../", import.meta.url),
      env: {
        ...process.env,
        SANDBOX_PORT: String(port),
        SANDBOX_API_KEY: "sk_standalone",
        SANDBOX_WEBHOOK_URL: receiver.url,
        SANDBOX_WEBHOOK_SECRET: "whsec_standalone",
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await waitFor("startup banner", () => output.includes("Ctrl+C"), 20_000);
      expect(output).toContain(`http://127.0.0.1:${port}/api/v1`);
      expect(output).toContain("sk_standalone");
      const profile = await fetch(`http://127.0.0.1:${port}/api/v1/user`, {
        headers: { "X-API-KEY": "sk_standalone" },
      });
      const body = (await profile.json()) as {
        data: { account: { webhook: { url: string; secret: string; isActive: boolean } } };
      };
      expect(body.data.account.webhook).toMatchObject({
        url: receiver.url,
        secret: "whsec_standalone",
        isActive: true,
      });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it("refuses a bad SANDBOX_PORT with a clear message", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/standins/sandbox/standalone.ts"], {
      cwd: new URL("../../", import.meta.url),
      env: { ...process.env, SANDBOX_PORT: "http" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) =>
      child.once("exit", (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(2);
    expect(errors).toContain('SANDBOX_PORT must be a port number, got "http"');
  });
});
