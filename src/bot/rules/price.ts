import { z } from "zod";
import type { PayoutApi, Price } from "#src/api/index.js";
import { CORRIDOR_CURRENCY_CODES } from "#src/corridors/index.js";
import {
  COUNTRIES,
  type Country,
  currencyOfCountry,
  type FiatCurrencyCode,
  isoOf,
} from "#src/money/index.js";
import type { CacheRepository, Store } from "#src/store/index.js";

/**
 * Spot prices for /price and the buy flow's "about ₦…" hints. One GET /price per currency per ~30 s across all
 * users and processes (Redis cache), and one request in flight per currency inside a process (a burst of /price
 * shares it). Rates arrive as numbers in major units; they are turned into integer minor units once, here, for
 * display with formatMoney (they are rates for information, never amounts we charge).
 */
export const PRICE_CACHE_SECONDS = 30;
const SATS_PER_BTC = 100_000_000;

export interface SpotPrice {
  country: Country;
  currency: FiatCurrencyCode;
  /** Minor units of `currency` for 1 BTC. */
  perBtc: number;
  /** Minor units of `currency` for 1 USD; undefined when the API did not say. */
  perUsd?: number;
  /** When the API priced it (ms since epoch). */
  at: number;
}

const spotPriceSchema = z.object({
  country: z.enum(COUNTRIES),
  currency: z.enum(CORRIDOR_CURRENCY_CODES),
  perBtc: z.number().int().positive(),
  perUsd: z.number().int().positive().optional(),
  at: z.number(),
});

const ISO_OF = Object.fromEntries(
  COUNTRIES.map((country) => [country, isoOf(currencyOfCountry(country))]),
) as Record<Country, string>;

/** Minor units of local currency that `sats` buy at this price (rounded to the nearest minor unit). */
export function satsValue(price: Pick<SpotPrice, "perBtc">, sats: number): number {
  return Math.round((price.perBtc * sats) / SATS_PER_BTC);
}

/** Sats that `minor` units of local currency buy at this price (rounded down). */
export function satsFor(price: Pick<SpotPrice, "perBtc">, minor: number): number {
  return Math.floor((minor * SATS_PER_BTC) / price.perBtc);
}

/** Local minor units needed to get `sats` (rounded up), before fees. */
export function minorFor(price: Pick<SpotPrice, "perBtc">, sats: number): number {
  return Math.ceil((price.perBtc * sats) / SATS_PER_BTC);
}

export function spotPriceFromApi(country: Country, price: Price, fetchedAt: number): SpotPrice {
  const perBtc = Math.round(price.btcPriceInUnitCurrency * 100);
  if (!Number.isSafeInteger(perBtc) || perBtc <= 0) throw new RangeError(`unusable BTC price for ${country}`);
  const usd = price.unitPricePerUsd?.amount;
  const perUsd = usd !== undefined && usd > 0 ? Math.round(usd * 100) : undefined;
  const at =
    price.timestamp !== undefined && price.timestamp > 0 ? Math.round(price.timestamp * 1000) : fetchedAt;
  return {
    country,
    currency: currencyOfCountry(country),
    perBtc,
    ...(perUsd !== undefined && Number.isSafeInteger(perUsd) ? { perUsd } : {}),
    at,
  };
}

export class PriceService {
  private readonly inFlight = new Map<Country, Promise<SpotPrice>>();

  constructor(
    private readonly api: Pick<PayoutApi, "getPrice">,
    private readonly cache: CacheRepository,
    private readonly options: { ttlSeconds?: number; now?: () => number } = {},
  ) {}

  /** The cached price when fresh, else one API call (shared by concurrent callers). API errors propagate. */
  async get(country: Country): Promise<SpotPrice> {
    const cached = await this.cached(country);
    if (cached) return cached;
    return this.fresh(country);
  }

  /** A price from the API now (it refreshes the cache for everyone), shared by concurrent callers. */
  async fresh(country: Country): Promise<SpotPrice> {
    const running = this.inFlight.get(country);
    if (running) return running;
    const fetching = this.fetch(country).finally(() => this.inFlight.delete(country));
    this.inFlight.set(country, fetching);
    return fetching;
  }

  private async cached(country: Country): Promise<SpotPrice | undefined> {
    const raw = await this.cache.read({ kind: "price", iso: ISO_OF[country] });
    if (!raw) return undefined;
    try {
      const parsed = spotPriceSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private async fetch(country: Country): Promise<SpotPrice> {
    const now = this.options.now ?? Date.now;
    const price = spotPriceFromApi(country, await this.api.getPrice(ISO_OF[country]), now());
    const ttl = this.options.ttlSeconds ?? PRICE_CACHE_SECONDS;
    await this.cache.write({ kind: "price", iso: ISO_OF[country] }, JSON.stringify(price), ttl);
    return price;
  }
}

/** One PriceService per store (handlers and the buy flow share the in-process single flight). */
const services = new WeakMap<CacheRepository, PriceService>();

export function priceServiceFor(deps: {
  api: Pick<PayoutApi, "getPrice">;
  store: Pick<Store, "caches">;
}): PriceService {
  let service = services.get(deps.store.caches);
  if (!service) {
    service = new PriceService(deps.api, deps.store.caches);
    services.set(deps.store.caches, service);
  }
  return service;
}
