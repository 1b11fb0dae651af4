import type { Redis } from "ioredis";
import type { Logger } from "#src/log/logger.js";

interface OutageReport {
  logger: Logger;
  /** host:port (or the Sentinels), never a password. */
  address: string;
  /** The longest wait between two tries: at most one line per this many ms. */
  retryEveryMs: number;
}

/**
 * What the log says while Redis is away: one line per retry interval with the address, the reason and what waits
 * for it, then one line when it answers again. ioredis emits an error for every failed try (the first ones come
 * 50 ms apart) and retries by itself, so those errors carry no news and no stack worth printing. BullMQ's
 * connections to the same Redis keep quiet about them (src/events/queue-bullmq.ts).
 */
export function reportRedisOutages(redis: Redis, report: OutageReport): void {
  const { logger, address, retryEveryMs } = report;
  const fields = { dependency: "redis", address };
  let connectedOnce = false;
  let downSince: number | undefined;
  let loggedAt = Number.NEGATIVE_INFINITY;

  redis.on("error", (error: Error) => {
    const now = performance.now();
    // A little slack: a retry due exactly one interval after the last line must not wait for the next one.
    if (now - loggedAt < retryEveryMs * 0.9) return;
    loggedAt = now;
    if (!isRedisConnectionError(error)) {
      // A reply of Redis's own (WRONGPASS, NOAUTH…) says all there is; anything else keeps its stack.
      if (error.name === "ReplyError")
        logger.warn({ ...fields, reason: error.message }, `redis: ${address} answered "${error.message}"`);
      else logger.warn({ ...fields, err: error }, `redis: error from ${address}`);
      return;
    }
    downSince ??= now;
    const downForMs = Math.round(now - downSince);
    const reason = reasonOf(error);
    const waiting = connectedOnce
      ? "updates, webhooks and deliveries wait until it answers"
      : "the bot starts once it answers";
    logger.warn(
      { ...fields, reason, downForMs },
      `redis: cannot reach ${address} (${reason})${downForMs > 0 ? ` for ${seconds(downForMs)} s` : ""}; ` +
        `${waiting}, trying again every ${retryEveryMs / 1000} s`,
    );
  });

  redis.on("ready", () => {
    const downForMs = downSince === undefined ? undefined : Math.round(performance.now() - downSince);
    if (!connectedOnce) logger.info({ ...fields, downForMs }, `redis: connected to ${address}`);
    else if (downForMs !== undefined)
      logger.info(
        { ...fields, downForMs },
        `redis: connected to ${address} again after ${seconds(downForMs)} s`,
      );
    connectedOnce = true;
    downSince = undefined;
    loggedAt = Number.NEGATIVE_INFINITY;
  });
}

/** ECONNREFUSED, ETIMEDOUT…; "All sentinels are unreachable" when the error has no code. */
function reasonOf(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return error.message.split(".")[0] ?? error.message;
}

/** 0.4, 2.2, 17: tenths only while they matter. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}

/** Codes of a Redis that is down or unreachable: expected while it is away, and retried by ioredis on its own. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/** An error that only says Redis cannot be reached right now (the connection is retried), not that it misbehaved. */
export function isRedisConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // A host with several addresses fails with an AggregateError carrying the code of each try.
  const tries = error instanceof AggregateError ? [error, ...error.errors] : [error];
  if (tries.some((each) => CONNECTION_CODES.has(String((each as { code?: unknown }).code)))) return true;
  return /^(All sentinels are unreachable|Connection is closed)/.test(error.message);
}
