import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { ProcessRegistry } from "./processes.ts";
import { deleteIfEquals, LuaScript } from "./script.ts";

/**
 * A per-key Redis lock (SET NX PX, taken by the delivery claim's script: store/delivery-claims.ts), renewed while
 * held, so only one delivery at a time talks to an order's chat.
 * Its value is `<process id>:<random token>`: a process that finds the lock taken looks at the owner's heartbeat
 * (ProcessRegistry) and takes the lock over when the owner is dead, instead of waiting out the TTL — a restart after
 * a crash resumes delivery within the heartbeat's few seconds. The TTL stays as the last resort (Redis lost the
 * heartbeat key, an owner without a registry).
 */
export interface HeldLock {
  readonly key: string;
  readonly token: string;
  release(): Promise<void>;
  /** The lock was released by another script (a delivery's last outbox move): only stop renewing it. */
  releasedElsewhere(): void;
}

const EXTEND = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`,
);

/** KEYS: lock, the owner's heartbeat. ARGV: the value seen, the new value, ttl. Takes the lock only from the dead. */
const TAKE_OVER = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('EXISTS', KEYS[2]) == 0 then
     redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end return 0`,
);

export interface LockOptions {
  ttlMs?: number;
  /** This process's registry: names the owner in the lock and lets a dead owner's lock be taken over. */
  processes?: ProcessRegistry;
}

/** A lock's value: its owner (the process id, or "anonymous") and a random part. */
export function lockToken(processes: ProcessRegistry | undefined): string {
  return `${processes?.id ?? "anonymous"}:${randomUUID()}`;
}

/** How long a lock lives unless renewed (30 s unless `ttlMs` says). */
export function lockTtlMs(options: LockOptions): number {
  return options.ttlMs ?? 30_000;
}

/**
 * Take the lock at `key` as `token` when its owner's heartbeat has lapsed (needs the process registry; a lock that
 * names no owner, or this process, is left to its TTL).
 */
export async function takeOverIfDead(
  redis: Redis,
  key: string,
  token: string,
  options: LockOptions,
): Promise<boolean> {
  const { processes } = options;
  if (!processes) return false;
  const current = await redis.get(key);
  const owner = current?.split(":", 1)[0];
  if (!current || !owner || owner === "anonymous" || owner === processes.id) return false;
  return (
    (await TAKE_OVER.run(redis, [key, processes.keyOf(owner)], [current, token, lockTtlMs(options)])) === 1
  );
}

/** A lock just acquired as `token`: renewed while held, released (only if still ours) when done. */
export function holdLock(redis: Redis, key: string, token: string, ttlMs: number): HeldLock {
  const renew = setInterval(
    () => {
      EXTEND.run(redis, [key], [token, ttlMs]).catch(() => {
        // A lost renewal only shortens the lock; the job's own idempotence covers the rest.
      });
    },
    Math.max(1_000, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  let released = false;
  return {
    key,
    token,
    async release() {
      clearInterval(renew);
      if (released) return;
      released = true;
      await deleteIfEquals(redis, key, token);
    },
    releasedElsewhere() {
      clearInterval(renew);
      released = true;
    },
  };
}
