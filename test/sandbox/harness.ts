import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decode } from "light-bolt11-decoder";
import { type Sandbox, type SandboxOptions, startSandbox } from "#src/standins/sandbox/index.js";

/** Test harness: a sandbox on a free port, real HTTP calls, and a real webhook receiver. */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected field by field in tests
export type Json = any;

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

export interface Api {
  sandbox: Sandbox;
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; raw?: string },
  ): Promise<Reply>;
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  /** Control route (outside /api/v1, no key). */
  control(method: string, path: string, body?: unknown): Promise<Reply>;
}

export async function openSandbox(options: SandboxOptions = {}): Promise<Api> {
  const sandbox = await startSandbox(options);
  const call: Api["call"] = async (method, path, body, callOptions = {}) => {
    const headers: Record<string, string> = {};
    const key = callOptions.key === undefined ? sandbox.apiKey : callOptions.key;
    if (key !== null) headers["X-API-KEY"] = key;
    let payload: string | undefined = callOptions.raw;
    if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers["content-type"] = "application/json";
    const url =
      path.startsWith("/_sandbox") || path.startsWith("/checkout")
        ? sandbox.origin + path
        : sandbox.baseUrl + path;
    const response = await fetch(url, { method, headers, body: payload });
    const text = await response.text();
    let parsed: Json = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // HTML pages stay text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    sandbox,
    call,
    get: (path) => call("GET", path),
    post: (path, body) => call("POST", path, body),
    control: (method, path, body) => call(method, path, body, { key: null }),
  };
}

export interface ReceivedWebhook {
  event: string;
  raw: string;
  payload: Json;
  headers: IncomingHttpHeaders;
}

export type Plan = number | "hang";

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Responses for the next requests, in order; afterwards 200. */
  plan: Plan[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hung: ServerResponse[] = [];
  const receiver: Receiver = {
    url: "",
    received: [],
    plan: [],
    close: async () => {
      for (const res of hung) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const payload = JSON.parse(raw);
      receiver.received.push({ event: payload.event, raw, payload, headers: req.headers });
      const next = receiver.plan.shift() ?? 200;
      if (next === "hang") {
        hung.push(res);
        return;
      }
      res.writeHead(next, { "content-type": "text/plain" });
      res.end(next < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payout`;
  return receiver;
}

/** Poll until `probe` returns something truthy; fail with `what` after the deadline. */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** Wait until the receiver holds `count` webhooks (optionally only of some events). */
export function waitForWebhooks(
  receiver: Receiver,
  count: number,
  events?: string[],
): Promise<ReceivedWebhook[]> {
  return waitFor(`${count} webhooks ${events?.join(",") ?? ""}`, () => {
    const list = receiver.received.filter((hook) => !events || events.includes(hook.event));
    return list.length >= count ? list : undefined;
  });
}

export function hmacHex(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("hex");
}

/** Both signature headers must be the HMAC of the exact bytes received. */
export function signatureValid(hook: ReceivedWebhook, secret: string): boolean {
  const expected = hmacHex(secret, hook.raw);
  return hook.headers["x-mavapay-signature"] === expected && hook.headers["x-webhook-signature"] === expected;
}

export function decodeInvoice(invoice: string): {
  amountSats: number;
  paymentHash: string;
  network: string;
  expiry: number;
  timestamp: number;
} {
  const decoded = decode(invoice);
  const section = (name: string) => decoded.sections.find((candidate) => candidate.name === name) as Json;
  return {
    amountSats: Number(BigInt(section("amount").value) / 1000n),
    paymentHash: section("payment_hash").value,
    network: section("coin_network").letters,
    expiry: section("expiry").value,
    timestamp: section("timestamp").value,
  };
}

export const NGN_BENEFICIARY = {
  bankAccountNumber: "0149200000",
  bankAccountName: "OLADEJI OLAOLU",
  bankCode: "000013",
  bankName: "GTBANK PLC",
};

/** Signet/testnet addresses (BIP-173 test vector and a P2PKH testnet address). */
export const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
export const MAINNET_ADDRESS = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";

export function ngnPayoutQuote(overrides: Record<string, unknown> = {}) {
  return {
    amount: 1_000_000,
    sourceCurrency: "BTCSAT",
    targetCurrency: "NGNKOBO",
    paymentMethod: "LIGHTNING",
    paymentCurrency: "NGNKOBO",
    autopayout: true,
    beneficiary: NGN_BENEFICIARY,
    ...overrides,
  };
}

export function onchainQuote(overrides: Record<string, unknown> = {}) {
  return {
    amount: 10_000,
    sourceCurrency: "NGNKOBO",
    targetCurrency: "BTCSAT",
    paymentMethod: "BANKTRANSFER",
    paymentCurrency: "BTCSAT",
    speed: "fast",
    autopayout: true,
    beneficiary: { onChainAddress: TESTNET_ADDRESS },
    ...overrides,
  };
}

export const KES_PHONE = {
  identifierType: "paytophone",
  identifiers: { phoneNumber: "+254790000000", accountName: "John Doe", network: "mpesa" },
};

export function kesQuote(beneficiary: unknown, amount = 100_000) {
  return {
    amount,
    sourceCurrency: "BTCSAT",
    targetCurrency: "KESCENT",
    paymentMethod: "LIGHTNING",
    paymentCurrency: "BTCSAT",
    autopayout: true,
    beneficiary,
  };
}

/** Keys of every Transaction, in the order the sandbox writes them. */
export const TX_KEYS = [
  "id",
  "walletId",
  "ref",
  "hash",
  "amount",
  "fees",
  "currency",
  "type",
  "status",
  "autopayout",
  "createdAt",
  "updatedAt",
];

/** POST /quote that must succeed; returns `data`. */
export async function createQuote(api: Api, body: unknown): Promise<Json> {
  const reply = await api.post("/quote", body);
  if (reply.status !== 200) throw new Error(`quote refused: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Simulate paying a Lightning quote; the response must be the documented success. */
export async function payLightning(api: Api, quote: { id: string }): Promise<void> {
  const reply = await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.id });
  if (reply.body?.data !== "PayIn simulation successful")
    throw new Error(`pay-in refused: ${JSON.stringify(reply.body)}`);
}

export function expectBadRequest(reply: Reply, message: string | RegExp): void {
  if (reply.status !== 400 || reply.body?.status !== "error") {
    throw new Error(`expected a 400 error, got ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const ok = typeof message === "string" ? reply.body.message === message : message.test(reply.body.message);
  if (!ok) throw new Error(`expected message ${String(message)}, got "${reply.body.message}"`);
}
