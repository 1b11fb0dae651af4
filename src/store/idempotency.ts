import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { claimKey } from "./claims.ts";
import { keys } from "./keys.ts";
import type { ProcessRegistry } from "./processes.ts";
import { deleteIfEquals, LuaScript } from "./script.ts";

/**
 * Run a money action at most once per key: the first caller runs `action` and stores its JSON result; a later
 * caller with the same key (a double tap, a redelivered update, a replayed conversation) gets the stored result.
 * While the first call is in flight, others get `InFlightError` rather than starting a second action.
 *
 * A pending claim names its owner (this process's ProcessRegistry id). When the owner died mid-action (its
 * heartbeat is gone), the claim stays "pending" for its whole TTL: a caller that passes `takeover` may then take it
 * over — one Lua compare-and-set on the exact stored value, so of two takers exactly one wins — and runs the action
 * with `{ takeover: true }`. Only an action that can find out what the dead run did (a quote: read back by its
 * customerReference) may allow that; for the others the InFlightError stays, because running them again blind
 * could move money twice.
 */
export class InFlightError extends Error {
  constructor(readonly key: string) {
    super(`action ${key} is already in progress`);
    this.name = "InFlightError";
  }
}

export interface RunContext {
  /** true: an earlier run of this key died mid-action; resolve what it did before doing anything. */
  takeover: boolean;
}

interface RunOnceOptions {
  /** How long the claim and the result are kept (default a day). */
  ttlSeconds?: number;
  /** This process: its id is written into the pending claim (without it a claim can never be taken over). */
  processes?: Pick<ProcessRegistry, "id" | "keyOf">;
  /** The action resolves an interrupted run itself (see above): a dead owner's pending claim may be taken over. */
  takeover?: boolean;
  /**
   * A takeover waits until the dead owner's claim is at least this old (default 10 s), so a request the dead
   * process sent just before dying has had time to land at the API before the action reads it back.
   */
  settleMs?: number;
}

interface Pending {
  state: "pending";
  /** Process id of the runner (absent: claimed without a registry, never taken over). */
  owner?: string;
  /** Unique per claim: the compare-and-set compares whole values, so a re-claim never looks like the old one. */
  claim: string;
}

interface Done<T> {
  state: "done";
  value: T;
}

const DAY_SECONDS = 24 * 3600;

/** KEYS: claim, the owner's heartbeat. ARGV: the value seen, the new value, ttl (s). 1 when taken over. */
const TAKE_OVER = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('EXISTS', KEYS[2]) == 0 then
     redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) return 1 end return 0`,
);

/** KEYS: claim. ARGV: our pending value, the done value, ttl (s). 1 stored; 0 the claim is no longer ours. */
const COMPLETE = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) return 1 end
   return 0`,
);

export async function runOnce<T>(
  redis: Redis,
  scope: string,
  key: string,
  action: (run: RunContext) => Promise<T>,
  options: RunOnceOptions = {},
): Promise<T> {
  const ttlSeconds = options.ttlSeconds ?? DAY_SECONDS;
  const redisKey = keys.idempotency(scope, key);
  const owner = options.processes?.id;
  const mine = JSON.stringify({
    state: "pending",
    ...(owner ? { owner } : {}),
    claim: randomUUID(),
  } satisfies Pending);
  let takeover = false;
  if (!(await claimKey(redis, redisKey, mine, ttlSeconds * 1000))) {
    const raw = await redis.get(redisKey);
    const stored = raw ? (JSON.parse(raw) as Pending | Done<T>) : undefined;
    if (stored?.state === "done") return stored.value;
    // Gone meanwhile (the first run failed and let go): a fresh try is the user's, not ours to start here.
    if (!raw || !stored || !(await tookOver(redis, redisKey, raw, stored, mine, ttlSeconds, options))) {
      throw new InFlightError(key);
    }
    takeover = true;
  }
  let value: T;
  try {
    value = await action({ takeover });
  } catch (error) {
    // Failed before any result: let the user try again (the action itself decides whether a retry is safe).
    await deleteIfEquals(redis, redisKey, mine);
    throw error;
  }
  const done = JSON.stringify({ state: "done", value } satisfies Done<T>);
  if ((await COMPLETE.run(redis, [redisKey], [mine, done, ttlSeconds])) === 1) return value;
  // Taken over while we ran (our heartbeat lapsed although we lived): the taker's result, once stored, is the one.
  const now = await redis.get(redisKey);
  const stored = now ? (JSON.parse(now) as Pending | Done<T>) : undefined;
  return stored?.state === "done" ? stored.value : value;
}

async function tookOver(
  redis: Redis,
  redisKey: string,
  raw: string,
  stored: Pending,
  mine: string,
  ttlSeconds: number,
  options: RunOnceOptions,
): Promise<boolean> {
  const { processes } = options;
  if (!options.takeover || !processes || !stored.owner || stored.owner === processes.id) return false;
  const heartbeat = processes.keyOf(stored.owner);
  if ((await redis.exists(heartbeat)) === 1) return false;
  // The claim's age from its TTL (Redis's clock, not ours): wait until the dead run's last request had time to land.
  const settleMs = options.settleMs ?? 10_000;
  const remainingMs = await redis.pttl(redisKey);
  if (remainingMs > 0) {
    const ageMs = ttlSeconds * 1000 - remainingMs;
    if (ageMs < settleMs) await sleep(settleMs - ageMs);
  }
  return (await TAKE_OVER.run(redis, [redisKey, heartbeat], [raw, mine, ttlSeconds])) === 1;
}

/** runOnce on the store's connection: how the bot runs a money action at most once (`deps.store.once.run`). */
export class OnceRepository {
  constructor(private readonly redis: Redis) {}

  run<T>(scope: string, key: string, action: (run: RunContext) => Promise<T>, options?: RunOnceOptions) {
    return runOnce(this.redis, scope, key, action, options);
  }
}
