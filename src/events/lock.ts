import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { deleteIfEquals, LuaScript } from "../store/script.ts";

/**
 * A per-key Redis lock (SET NX PX with a random token), renewed while held, so only one delivery at a time talks
 * to an order's chat. If the holder dies the lock expires after `ttlMs` and the job is retried elsewhere.
 */
export interface HeldLock {
  release(): Promise<void>;
}

const EXTEND = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`,
);

export async function tryLock(redis: Redis, key: string, ttlMs = 30_000): Promise<HeldLock | undefined> {
  const token = randomUUID();
  const acquired = await redis.set(key, token, "PX", ttlMs, "NX");
  if (acquired !== "OK") return undefined;
  const renew = setInterval(
    () => {
      EXTEND.run(redis, [key], [token, ttlMs]).catch(() => {
        // A lost renewal only shortens the lock; the job's own idempotence covers the rest.
      });
    },
    Math.max(1_000, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  return {
    async release() {
      clearInterval(renew);
      await deleteIfEquals(redis, key, token);
    },
  };
}
