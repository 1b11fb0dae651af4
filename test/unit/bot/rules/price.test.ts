import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi, type PayoutApi, PayoutApiError } from "#src/api/index.js";
import { defaultCountry, parseCountryArgument, priceText } from "#src/bot/account/price.js";
import {
  minorFor,
  PRICE_CACHE_SECONDS,
  PriceService,
  satsFor,
  satsValue,
  spotPriceFromApi,
} from "#src/bot/rules/price.js";
import { createTranslator } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { CacheRepository, keys } from "#src/store/index.js";
import { freshRedis } from "../../../support/redis.ts";

let sandbox: Sandbox;
let api: PayoutApi;
let redis: Redis;

beforeAll(async () => {
  // Sandbox default prices: 1 BTC = 100,000 USD; 1 USD = 1,500 NGN / 130 KES / 18 ZAR / 12 GHS.
  sandbox = await startSandbox({ port: 0 });
  api = createPayoutApi({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, retry: { attempts: 1 } });
  redis = await freshRedis();
});

afterAll(async () => {
  await api.close();
  await sandbox.close();
  await redis.quit();
});

/** The real client, counting how often GET /price actually went out. */
function countingApi() {
  const calls: string[] = [];
  return {
    calls,
    client: {
      getPrice: (currency: string) => {
        calls.push(currency);
        return api.getPrice(currency);
      },
    },
  };
}

describe("spot prices in minor units", () => {
  it("turns GET /price into integer minor units per BTC and per USD", async () => {
    const before = Math.floor(sandbox.now() / 1000) * 1000;
    const price = spotPriceFromApi("NG", await api.getPrice("NGN"), 0);
    expect(price).toMatchObject({
      country: "NG",
      currency: "NGNKOBO",
      perBtc: 15_000_000_000,
      perUsd: 150_000,
    });
    // The API's timestamp is in whole seconds, taken while the request was served (a second may tick meanwhile).
    expect(price.at % 1000).toBe(0);
    expect(price.at).toBeGreaterThanOrEqual(before);
    expect(price.at).toBeLessThanOrEqual(sandbox.now());
    expect(spotPriceFromApi("KE", await api.getPrice("KES"), 0)).toMatchObject({
      perBtc: 1_300_000_000,
      perUsd: 13_000,
    });
  });

  it("converts between sats and local money without floats leaking into amounts", () => {
    const price = { perBtc: 15_000_000_000 };
    expect(satsValue(price, 10_000)).toBe(1_500_000); // ₦15,000.00
    expect(satsFor(price, 1_500_000)).toBe(10_000);
    expect(minorFor(price, 6_000)).toBe(900_000); // ₦9,000.00 before fees
    for (const value of [satsValue(price, 1), satsFor(price, 1), minorFor(price, 1)]) {
      expect(Number.isSafeInteger(value)).toBe(true);
    }
  });

  it("parses /price arguments and picks a default country from the locale", () => {
    expect(parseCountryArgument("ke")).toBe("KE");
    expect(parseCountryArgument(" ZAR ")).toBe("ZA");
    expect(parseCountryArgument("US")).toBeUndefined();
    expect(defaultCountry("sw-KE")).toBe("KE");
    expect(defaultCountry("fr-FR")).toBe("NG");
  });

  it("renders 1 BTC, 1 USD, 10,000 sats and the time", async () => {
    const translator = await createTranslator({ logger: silentLogger() });
    const price = spotPriceFromApi("GH", await api.getPrice("GHS"), 0);
    const text = priceText({ t: translator.t("en"), locale: "en-GH" }, price);
    expect(text).toContain("1 BTC = <b>GH₵ 1,200,000.00</b>");
    expect(text).toContain("1 USD = GH₵ 12.00");
    expect(text).toContain("10,000 sats = GH₵ 120.00");
    expect(text).toMatch(/Updated .*\d{1,2}:\d{2}/);
  });
});

describe("PriceService cache", () => {
  it("serves a burst with one API call and keeps the price ~30 s in Redis", async () => {
    const { calls, client } = countingApi();
    const service = new PriceService(client, new CacheRepository(redis));
    const burst = await Promise.all(Array.from({ length: 10 }, () => service.get("ZA")));
    expect(calls).toEqual(["ZAR"]);
    expect(new Set(burst.map((price) => price.perBtc))).toEqual(new Set([180_000_000]));

    const ttl = await redis.ttl(keys.priceCache("ZAR"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(PRICE_CACHE_SECONDS);

    // Another process (another service instance) reads the same cache.
    const other = countingApi();
    await new PriceService(other.client, new CacheRepository(redis)).get("ZA");
    expect(other.calls).toEqual([]);

    // Once the cache entry is gone, the next call asks the API again.
    await redis.del(keys.priceCache("ZAR"));
    await service.get("ZA");
    expect(calls).toEqual(["ZAR", "ZAR"]);
  });

  it("propagates API failures and caches nothing", async () => {
    const failing = {
      getPrice: () =>
        Promise.reject(
          new PayoutApiError({ kind: "server", endpoint: "GET /price", detail: "503 from the API" }),
        ),
    };
    await redis.del(keys.priceCache("GHS"));
    await expect(new PriceService(failing, new CacheRepository(redis)).get("GH")).rejects.toBeInstanceOf(
      PayoutApiError,
    );
    expect(await redis.exists(keys.priceCache("GHS"))).toBe(0);
  });
});
