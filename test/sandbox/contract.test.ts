import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Api,
  decodeInvoice,
  NGN_BENEFICIARY,
  openSandbox,
  type Receiver,
  type Reply,
  signatureValid,
  startReceiver,
  TESTNET_ADDRESS,
  waitForWebhooks,
} from "./harness.ts";

/**
 * What real third-party clients send and read back (api-behaviour-notes §9 and §11), replayed against the sandbox
 * so it cannot drift from them. Each request is written down as a fact — method, path, query and headers (the key
 * or its absence) — with the fields the client reads from `data`. Nothing here follows the clients' code.
 */

type Headers = "none" | "key";

interface ClientRequest {
  client: "blinkbitcoin/mavapay-client" | "Mavapay/payment-checkout";
  method: "GET" | "POST";
  path: string;
  query: Record<string, string>;
  headers: Headers;
  /** Dotted paths under `data` the client reads; `[]` means "every item". */
  reads: string[];
}

const MAVAPAY_CLIENT = "blinkbitcoin/mavapay-client" as const;
const CHECKOUT = "Mavapay/payment-checkout" as const;

const BANK_LIST: ClientRequest = {
  client: MAVAPAY_CLIENT,
  method: "GET",
  path: "/bank/bankcode",
  query: { country: "NG" },
  headers: "none",
  reads: ["[].bankName", "[].nipBankCode"],
};
const NAME_ENQUIRY: ClientRequest = {
  client: MAVAPAY_CLIENT,
  method: "GET",
  path: "/bank/name-enquiry",
  query: { accountNumber: NGN_BENEFICIARY.bankAccountNumber, bankCode: NGN_BENEFICIARY.bankCode },
  headers: "key",
  reads: ["accountName", "accountNumber"],
};
const CREATE_QUOTE: ClientRequest = {
  client: MAVAPAY_CLIENT,
  method: "POST",
  path: "/quote",
  query: {},
  headers: "key",
  reads: [
    "id",
    "exchangeRate",
    "sourceCurrency",
    "targetCurrency",
    "amountInSourceCurrency",
    "amountInTargetCurrency",
    "transactionFeesInSourceCurrency",
    "transactionFeesInTargetCurrency",
    "totalAmountInSourceCurrency",
    "paymentMethod",
    "invoice",
    "hash",
    "expiry",
    "orderId",
    "createdAt",
    "updatedAt",
  ],
};
const LINK_FIELDS = ["id", "name", "description", "paymentLinkOrderId", "paymentMethods", "account.name"];
const BANK_BLOCK = [
  "BANKTRANSFER.ngnAccountName",
  "BANKTRANSFER.ngnBankName",
  "BANKTRANSFER.ngnBankAccountNumber",
  "BANKTRANSFER.amount",
  "BANKTRANSFER.targetAmount",
  "BANKTRANSFER.expiresAt",
];
const LIGHTNING_BLOCK = [
  "LIGHTNING.invoice",
  "LIGHTNING.amount",
  "LIGHTNING.targetAmount",
  "LIGHTNING.expiresAt",
];

function details(id: string, paymentMethod?: string): ClientRequest {
  const blocks = paymentMethod === "LIGHTNING" ? LIGHTNING_BLOCK : BANK_BLOCK;
  return {
    client: CHECKOUT,
    method: "GET",
    path: "/paymentlink/details",
    query: paymentMethod ? { id, paymentMethod } : { id },
    headers: "none",
    reads: [...LINK_FIELDS, ...blocks].map((field) => `paymentLinkDetails.${field}`),
  };
}

function refresh(id: string, paymentMethod: string): ClientRequest {
  return { ...details(id, paymentMethod), path: "/paymentlink/refresh" };
}

function status(orderId: string): ClientRequest {
  return {
    client: CHECKOUT,
    method: "GET",
    path: "/paymentlink/status",
    query: { orderId },
    headers: "none",
    reads: ["status"],
  };
}

let api: Api;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  api = await openSandbox({ webhookUrl: receiver.url });
});
afterEach(async () => {
  await api.sandbox.close();
  await receiver.close();
});

/** Send a request exactly as the client does; it must succeed and carry every field the client reads. */
async function send(request: ClientRequest, body?: unknown): Promise<Reply> {
  const query = new URLSearchParams(request.query).toString();
  const path = query ? `${request.path}?${query}` : request.path;
  const reply = await api.call(request.method, path, body, {
    key: request.headers === "key" ? api.sandbox.apiKey : null,
  });
  const what = `${request.client}: ${request.method} ${path}`;
  expect(reply.status, `${what} → ${JSON.stringify(reply.body)}`).toBe(200);
  expect(reply.body.status, what).toBe("ok");
  for (const field of request.reads) {
    for (const value of read(reply.body.data, field)) {
      expect(value === undefined || value === null, `${what} reads ${field}`).toBe(false);
    }
  }
  return reply;
}

function read(data: unknown, field: string): unknown[] {
  let values: unknown[] = [data];
  for (const part of field.split(".")) {
    if (part === "[]") {
      values = values.flatMap((value) => (Array.isArray(value) && value.length > 0 ? value : [undefined]));
      continue;
    }
    const [name, each] = part.endsWith("[]") ? [part.slice(0, -2), true] : [part, false];
    values = values.map((value) =>
      value !== null && typeof value === "object" ? (value as Record<string, unknown>)[name] : undefined,
    );
    if (each) values = values.flatMap((value) => (Array.isArray(value) ? value : [undefined]));
  }
  return values;
}

/** The merchant's server creates the link, with its key (not part of the checkout). */
async function createLink(paymentMethods: string[]): Promise<string> {
  const reply = await api.post("/paymentlink", {
    name: "Table 4",
    description: "Dinner",
    type: "One_Time",
    addFeeToTotalCost: false,
    settlementCurrency: "BTC",
    settlementMethod: "ONCHAIN",
    speed: "medium",
    paymentCurrency: "NGN",
    paymentMethods,
    beneficiary: { onChainAddress: TESTNET_ADDRESS },
    amount: 2_000_000,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.paymentRef;
}

/**
 * The checkout polls status (every 3–5 s on the real page; errors count as PENDING) until SETTLED. Between polls
 * the test moves the world on — a block is mined — instead of waiting.
 */
async function pollUntilSettled(orderId: string): Promise<string[]> {
  const seen: string[] = [];
  for (let poll = 0; poll < 10; poll += 1) {
    const value = (await send(status(orderId))).body.data.status;
    seen.push(value);
    if (value === "SETTLED") return seen;
    await api.control("POST", "/_sandbox/blocks/mine", { count: 1 });
  }
  throw new Error(`order ${orderId} never settled: ${seen.join(" → ")}`);
}

describe("blinkbitcoin/mavapay-client", () => {
  it("lists banks with no key, checks the name with the key, and reads the quote's stamps", async () => {
    const banks = await send(BANK_LIST);
    expect(banks.body.data.length).toBeGreaterThan(400);
    const name = await send(NAME_ENQUIRY);
    const quote = await send(CREATE_QUOTE, {
      amount: 1_000_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "NGNKOBO",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
      beneficiary: { ...NGN_BENEFICIARY, bankAccountName: name.body.data.accountName },
    });
    const data = quote.body.data;
    expect(Date.parse(data.createdAt)).toBe(Date.parse(data.updatedAt));
    expect(Date.parse(data.expiry) - Date.parse(data.createdAt)).toBe(5 * 60_000);
    // Typed as strings by that client, integers on the real service: they must at least be integral.
    expect(Number.isInteger(Number(data.amountInTargetCurrency))).toBe(true);
    expect(Number.isInteger(Number(data.transactionFeesInTargetCurrency))).toBe(true);
  });

  it("a quote sent without autopayout pays nothing out, as on the real service", async () => {
    const quote = await send(CREATE_QUOTE, {
      amount: 1_000_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "NGNKOBO",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "NGNKOBO",
      beneficiary: NGN_BENEFICIARY,
    });
    const before = (await api.get("/wallet?currency=NGN")).body.data[0].balance;
    await api.post("/simulation/pay-in", { currency: "BTC", quoteId: quote.body.data.id });
    const hooks = await waitForWebhooks(receiver, 1);
    // The payout leg would have been emitted with the pay-in response: the log holds every event emitted.
    expect(api.sandbox.webhookLog().map((record) => record.event)).toEqual(["payment.received"]);
    expect(hooks[0]?.payload.data).toMatchObject({ type: "DEPOSIT", autopayout: false, amount: 1_000_000 });
    const after = (await api.get("/wallet?currency=NGN")).body.data[0].balance;
    expect(Number(after) - Number(before)).toBe(1_000_000);
  });
});

describe("Mavapay/payment-checkout, key-less, until SETTLED", () => {
  it("BANKTRANSFER link: details → refresh → status polling, paid by transfer between polls", async () => {
    const ref = await createLink(["BANKTRANSFER"]);
    const shown = (await send(details(ref))).body.data.paymentLinkDetails;
    expect(shown.paymentMethods).toEqual(["BANKTRANSFER"]);
    expect(shown.LIGHTNING).toBeNull();
    const refreshed = (await send(refresh(ref, "BANKTRANSFER"))).body.data.paymentLinkDetails;
    expect(refreshed.paymentLinkOrderId).toBe(shown.paymentLinkOrderId);
    const orderId: string = refreshed.paymentLinkOrderId;
    expect(orderId).toMatch(/^\d{5}-\d{4}$/);
    expect((await send(status(orderId))).body.data.status).toBe("PENDING");

    const paid = await api.post("/simulation/pay-in", {
      currency: "NGN",
      orderId,
      amount: refreshed.BANKTRANSFER.amount,
    });
    expect(paid.body).toEqual({ status: "ok", data: "PayIn simulation successful" });
    const seen = await pollUntilSettled(orderId);
    expect(seen.at(0)).toBe("PENDING");
    expect(seen.at(-1)).toBe("SETTLED");

    const hooks = await waitForWebhooks(receiver, 4);
    expect(hooks.map((hook) => [hook.event, hook.payload.data.status ?? null])).toEqual([
      ["payment.received", "SUCCESS"],
      ["payment.sent", "PENDING"],
      ["payment.sent", "SUCCESS"],
      ["payment_link.settled", null],
    ]);
    expect(hooks[3]?.payload.data).toMatchObject({ paymentRef: ref, paymentMethod: "BANKTRANSFER" });
    expect(hooks.every((hook) => signatureValid(hook, api.sandbox.webhookSecret))).toBe(true);
  });

  it("LIGHTNING link: details → refresh (fresh invoice) → status polling, paid over Lightning between polls", async () => {
    const ref = await createLink(["BANKTRANSFER", "LIGHTNING"]);
    const bank = (await send(details(ref))).body.data.paymentLinkDetails;
    expect(bank.paymentMethods).toEqual(["BANKTRANSFER", "LIGHTNING"]);
    const first = (await send(details(ref, "LIGHTNING"))).body.data.paymentLinkDetails;
    expect(first.BANKTRANSFER).toBeNull();
    expect(first.paymentLinkOrderId).not.toBe(bank.paymentLinkOrderId);
    // The same sats settle either way; the payer pays them plus the network and service fees, in sats.
    expect(first.LIGHTNING.targetAmount).toBe(bank.BANKTRANSFER.targetAmount);
    expect(first.LIGHTNING.amount).toBe(13_332);
    const invoice = decodeInvoice(first.LIGHTNING.invoice);
    expect(first.LIGHTNING.invoice.startsWith("lntbs")).toBe(true);
    expect(invoice.amountSats).toBe(first.LIGHTNING.amount);
    // The invoice carries whole seconds; the block the quote's millisecond expiry.
    expect(invoice.timestamp + invoice.expiry).toBe(Math.floor(Date.parse(first.LIGHTNING.expiresAt) / 1000));

    const fresh = (await send(refresh(ref, "LIGHTNING"))).body.data.paymentLinkDetails;
    expect(fresh.LIGHTNING.invoice).not.toBe(first.LIGHTNING.invoice);
    expect(fresh.LIGHTNING.amount).toBe(first.LIGHTNING.amount);
    expect(fresh.paymentLinkOrderId).not.toBe(first.paymentLinkOrderId);
    expect((await send(status(first.paymentLinkOrderId))).body.data.status).toBe("CANCELLED");
    const stale = await api.post("/simulation/pay-in", {
      currency: "BTC",
      orderId: first.paymentLinkOrderId,
    });
    expect(stale.body).toEqual({ status: "error", message: "Invalid quote ID" });

    const orderId: string = fresh.paymentLinkOrderId;
    expect((await send(status(orderId))).body.data.status).toBe("PENDING");
    const paid = await api.post("/simulation/pay-in", { currency: "BTC", orderId });
    expect(paid.body).toEqual({ status: "ok", data: "PayIn simulation successful" });
    const seen = await pollUntilSettled(orderId);
    expect(seen.at(-1)).toBe("SETTLED");

    const hooks = await waitForWebhooks(receiver, 4);
    expect(hooks.map((hook) => [hook.event, hook.payload.data.status ?? null])).toEqual([
      ["payment.received", "SUCCESS"],
      ["payment.sent", "PENDING"],
      ["payment.sent", "SUCCESS"],
      ["payment_link.settled", null],
    ]);
    expect(hooks[0]?.payload.data).toMatchObject({
      type: "DEPOSIT",
      currency: "BTC",
      amount: fresh.LIGHTNING.targetAmount,
      hash: decodeInvoice(fresh.LIGHTNING.invoice).paymentHash,
      btcUsdMetadata: { orderId, paymentMethod: "LIGHTNING" },
    });
    expect(hooks[3]?.payload.data).toMatchObject({
      paymentRef: ref,
      paymentMethod: "LIGHTNING",
      transaction: { type: "WITHDRAWAL", status: "SUCCESS", amount: fresh.LIGHTNING.targetAmount },
    });
    // One-time link: the bank-transfer order closed when the invoice was paid.
    const orders = (await api.get(`/paymentlink/orders?id=${ref}`)).body.data.orders;
    expect(
      orders.map((order: { paymentMethod: string; status: string }) => [order.paymentMethod, order.status]),
    ).toEqual([
      ["BANKTRANSFER", "CANCELLED"],
      ["LIGHTNING", "CANCELLED"],
      ["LIGHTNING", "SETTLED"],
    ]);
  });

  it("a LIGHTNING-only link answers details without paymentMethod with its Lightning block", async () => {
    const ref = await createLink(["LIGHTNING"]);
    const shown = (await send(details(ref, "LIGHTNING"))).body.data.paymentLinkDetails;
    const bare = (await api.call("GET", `/paymentlink/details?id=${ref}`, undefined, { key: null })).body
      .data;
    expect(bare.paymentLinkDetails.LIGHTNING).toEqual(shown.LIGHTNING);
    const asked = await api.call(
      "GET",
      `/paymentlink/details?id=${ref}&paymentMethod=BANKTRANSFER`,
      undefined,
      {
        key: null,
      },
    );
    expect(asked.body).toEqual({
      status: "error",
      message: "Invalid payment method: this link accepts LIGHTNING",
    });
    // The invoice expires with its 5-minute quote; a new order (and invoice) replaces it.
    await api.control("POST", "/_sandbox/clock/advance", { ms: 5 * 60_000 + 1 });
    const renewed = (await send(details(ref, "LIGHTNING"))).body.data.paymentLinkDetails;
    expect(renewed.paymentLinkOrderId).not.toBe(shown.paymentLinkOrderId);
    expect((await send(status(shown.paymentLinkOrderId))).body.data.status).toBe("EXPIRED");
  });
});
