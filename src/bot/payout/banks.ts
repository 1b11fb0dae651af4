import type { BotDeps } from "#src/bot/context.js";
import { type BankEntry, type BankSearch, createBankSearch } from "#src/bot/rules/banks.js";
import { cached } from "#src/bot/rules/cached.js";

/** The bank lists the NG and ZA recipient steps offer, cached in Redis for a day. */

const BANKS_TTL_SECONDS = 24 * 3600;

/** GET /bank/bankcode?country=NG, cached for a day. */
function ngBanks(deps: Pick<BotDeps, "store" | "api">): Promise<BankEntry[]> {
  return cached(
    deps,
    { kind: "payoutBanks", country: "NG" },
    BANKS_TTL_SECONDS,
    async () =>
      (await deps.api.listBanks("NG")).map(({ bankName, nipBankCode }) => ({ bankName, nipBankCode })),
    (banks) => banks.length > 0,
  );
}

/** The fuzzy index of each bank list, built once per list (the same list object while the cache is unchanged). */
const bankIndexes = new WeakMap<readonly BankEntry[], BankSearch>();

/** The NG bank search over the cached list: a step only searches, the index is built when the list changes. */
export async function ngBankSearch(deps: Pick<BotDeps, "store" | "api">): Promise<BankSearch> {
  const banks = await ngBanks(deps);
  let search = bankIndexes.get(banks);
  if (!search) {
    search = createBankSearch(banks);
    bankIndexes.set(banks, search);
  }
  return search;
}

/** GET /bank/bankcode?country=ZA, cached for a day. */
export function zaBanks(deps: BotDeps): Promise<string[]> {
  return cached(
    deps,
    { kind: "payoutBanks", country: "ZA" },
    BANKS_TTL_SECONDS,
    () => deps.api.listZaBanks(),
    (names) => names.length > 0,
  );
}
