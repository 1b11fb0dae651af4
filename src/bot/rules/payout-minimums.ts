import type { Price } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { CORRIDORS } from "#src/corridors/index.js";
import { COUNTRIES, type Country, currencyOfCountry } from "#src/money/index.js";
import { cached } from "./cached.ts";
import { minimumPayout } from "./payout-amount.ts";

const MINIMUMS_TTL_SECONDS = 10 * 60;

export type Minimums = Partial<Record<Country, number>>;

/** The minimum payout per country (fixed, or US dollars at GET /price; src/corridors), cached for 10 minutes. */
export async function minimums(deps: BotDeps): Promise<Minimums> {
  const load = async () => {
    const result: Minimums = {};
    await Promise.all(
      COUNTRIES.map(async (country) => {
        let price: Price | undefined;
        if ("usdCents" in CORRIDORS[country].minimum) {
          price = await deps.api.getPrice(currencyOfCountry(country).slice(0, 3)).catch((error: unknown) => {
            deps.logger.warn({ err: error, country }, "price lookup failed; minimum shown as 2 USD");
            return undefined;
          });
        }
        const minimum = minimumPayout(country, price);
        if (minimum !== undefined) result[country] = minimum;
      }),
    );
    return result;
  };
  return cached(deps, { kind: "payoutMinimums" }, MINIMUMS_TTL_SECONDS, load, (found) =>
    COUNTRIES.every((country) => found[country] !== undefined),
  );
}
