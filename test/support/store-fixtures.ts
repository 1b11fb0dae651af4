import type { Redis } from "ioredis";
import { createMemoryRedis } from "#src/standins/local/memory-redis.js";
import type { NewOrder } from "#src/store/index.js";
import { freshRedis } from "./redis.ts";

/** Both stores the store's scripts run on: redis-server, and local mode's in-memory stand-in (for `describe.each`). */
export const BOTH_STORES: Array<[string, () => Promise<Redis>]> = [
  ["redis-server", freshRedis],
  ["in-memory stand-in", createMemoryRedis],
];

/** A confirmed-looking NGN payout order of user 42, as the bot creates one; `orderId` and its refs vary per test. */
export function ngnOrder(orderId: string): NewOrder {
  return {
    orderId,
    quoteId: `q-${orderId}`,
    hash: `h-${orderId}`,
    kind: "payout",
    corridor: "NG",
    chatId: 42,
    userId: 42,
    pay: { amount: 12_000, currency: "BTCSAT" },
    receive: { amount: 1_000_000, currency: "NGNKOBO" },
    fee: { amount: 60, currency: "BTCSAT" },
    recipientLabel: "GTBANK PLC ••7890 · ADA OBI",
    beneficiary: {
      bankAccountNumber: "0123457890",
      bankAccountName: "ADA OBI",
      bankCode: "000013",
      bankName: "GTBANK PLC",
    },
    verificationCode: "🦊🍋",
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  };
}
