import type { Redis } from "ioredis";
import { keys } from "./keys.ts";

/**
 * Run a money action at most once per key: the first caller runs `action` and stores its JSON result; a later
 * caller with the same key (a double tap, a redelivered update, a replayed conversation) gets the stored result.
 * While the first call is in flight, others get `InFlightError` rather than starting a second action.
 */
export class InFlightError extends Error {
  constructor(readonly key: string) {
    super(`action ${key} is already in progress`);
    this.name = "InFlightError";
  }
}

export async function runOnce<T>(
  redis: Redis,
  scope: string,
  key: string,
  action: () => Promise<T>,
  ttlSeconds = 24 * 3600,
): Promise<T> {
  const redisKey = keys.idempotency(scope, key);
  const claimed = await redis.set(redisKey, JSON.stringify({ state: "pending" }), "EX", ttlSeconds, "NX");
  if (claimed !== "OK") {
    const raw = await redis.get(redisKey);
    const stored = raw ? (JSON.parse(raw) as { state: string; value?: T }) : undefined;
    if (stored?.state === "done") return stored.value as T;
    throw new InFlightError(key);
  }
  try {
    const value = await action();
    await redis.set(redisKey, JSON.stringify({ state: "done", value }), "EX", ttlSeconds);
    return value;
  } catch (error) {
    // Failed before any result: let the user try again (the action itself decides whether a retry is safe).
    await redis.del(redisKey);
    throw error;
  }
}
