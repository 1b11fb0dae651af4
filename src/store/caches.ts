import type { Redis } from "ioredis";
import { keys } from "./keys.ts";

/**
 * What the caches hold, each entry named by what it copies: the spot price of a currency (ISO code), a corridor's
 * bank list for payouts, the corridor minimums, the treasury's bank list, and whether a listed ops user is an
 * administrator of the ops group.
 */
export type CacheEntry =
  | { kind: "price"; iso: string }
  | { kind: "payoutBanks"; country: "NG" | "ZA" }
  | { kind: "payoutMinimums" }
  | { kind: "treasuryBanks" }
  | { kind: "opsAdmin"; chatId: number; userId: number };

function keyOf(entry: CacheEntry): string {
  switch (entry.kind) {
    case "price":
      return keys.priceCache(entry.iso);
    case "payoutBanks":
      return keys.payoutBanks(entry.country);
    case "payoutMinimums":
      return keys.payoutMinimums();
    case "treasuryBanks":
      return keys.treasuryBanks();
    case "opsAdmin":
      return keys.opsAdmin(entry.chatId, entry.userId);
  }
}

/**
 * Short-lived copies of what the payout API or Telegram said, shared by every process. Values are the caller's
 * text; where each entry lives is the store's business.
 */
export class CacheRepository {
  constructor(private readonly redis: Redis) {}

  async read(entry: CacheEntry): Promise<string | undefined> {
    return (await this.redis.get(keyOf(entry))) ?? undefined;
  }

  async write(entry: CacheEntry, text: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(keyOf(entry), text, "EX", ttlSeconds);
  }

  async forget(entry: CacheEntry): Promise<void> {
    await this.redis.del(keyOf(entry));
  }
}
