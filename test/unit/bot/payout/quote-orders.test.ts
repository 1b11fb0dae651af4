import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi, type PayoutApi } from "#src/api/index.js";
import { ngBankSearch } from "#src/bot/payout/banks.js";
import { type QuotedOrder, QuoteGoneError, recordedQuote } from "#src/bot/payout/quote-orders.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { createStore } from "#src/store/index.js";
import { freshRedis } from "../../../support/redis.ts";

const KEY = "payout:cache:banks:NG";

describe("NGN bank search cache", () => {
  let redis: Redis;
  let sandbox: Sandbox;
  let api: PayoutApi;
  beforeAll(async () => {
    redis = await freshRedis();
    sandbox = await startSandbox({ port: 0 });
    api = createPayoutApi({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey });
  });
  afterAll(async () => {
    await redis?.quit();
    await sandbox?.close();
  });

  it("loads the list once, then reuses the parsed list and its index while Redis holds the same list", async () => {
    const first = await ngBankSearch({ store: createStore(redis), api });
    expect(first.search("gtb")[0]?.bankName).toBe("GTBANK PLC");
    const cached = await redis.get(KEY);
    expect(JSON.parse(cached ?? "[]")).toContainEqual({ bankName: "GTBANK PLC", nipBankCode: "000013" });
    // Same entry in Redis: the same index, nothing rebuilt.
    expect(await ngBankSearch({ store: createStore(redis), api })).toBe(first);
  });

  it("sees a list replaced in Redis (another process, or a stale entry) at the next step", async () => {
    const before = await ngBankSearch({ store: createStore(redis), api });
    const banks = JSON.parse((await redis.get(KEY)) ?? "[]") as unknown[];
    await redis.set(
      KEY,
      JSON.stringify([...banks, { bankName: "GHOST MICROFINANCE BANK", nipBankCode: "999998" }]),
    );
    const after = await ngBankSearch({ store: createStore(redis), api });
    expect(after).not.toBe(before);
    expect(after.byCode("999998")?.bankName).toBe("GHOST MICROFINANCE BANK");
    expect(before.byCode("999998")).toBeUndefined();
    expect(await ngBankSearch({ store: createStore(redis), api })).toBe(after);
  });

  it("loads again from the API when the entry is gone or unreadable", async () => {
    await redis.set(KEY, "{not json");
    const search = await ngBankSearch({ store: createStore(redis), api });
    expect(search.byCode("000013")?.bankName).toBe("GTBANK PLC");
    expect(JSON.parse((await redis.get(KEY)) ?? "[]").length).toBeGreaterThan(10);
  });
});

describe("the quote recorded under a key", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await freshRedis();
  });
  afterAll(async () => {
    await redis?.quit();
  });

  const card: QuotedOrder = {
    orderId: "13115-9184",
    corridor: "NG",
    verificationCode: "🎁🔑",
    figures: {
      paySats: 6754,
      feeSats: 67,
      receive: 1_000_000,
      target: "NGNKOBO",
    },
    expiry: "2026-11-21T23:35:17.864Z",
    invoice: "lntbs67540n1p4sy2vf",
  };

  it("is read back, never made: no record is an error and leaves nothing behind", async () => {
    await expect(recordedQuote({ store: createStore(redis) }, "7001:42")).rejects.toBeInstanceOf(
      QuoteGoneError,
    );
    expect(await redis.exists("idem:quote:7001:42")).toBe(0);
    await redis.set("idem:quote:7001:42", JSON.stringify({ state: "done", value: card }));
    expect(await recordedQuote({ store: createStore(redis) }, "7001:42")).toEqual(card);
  });
});
