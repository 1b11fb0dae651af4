import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "#src/log/logger.js";

/**
 * Start-up connections to what the process needs from outside (Telegram, Redis): each is logged as it connects,
 * and a failure is logged at once with the reason and the next try, never a silent wait. A failure that retrying
 * cannot fix (a refused bot token) stops the start with `fatal`.
 */
interface DependencyOptions<T> {
  /** "telegram", "redis": the first word of every line. */
  name: string;
  /** Where it is, safe to log (no token, no password). */
  target: string;
  attempt: () => Promise<T>;
  logger: Logger;
  /** A reason that makes retrying pointless (e.g. 401): the start stops with this message. */
  fatal?: (error: unknown) => string | undefined;
  /** Waits between attempts; the last one repeats. Default 2 s, 2 s, 5 s, 10 s, 30 s. */
  delaysMs?: readonly number[];
  /** Aborts the waiting (shutdown during start). */
  signal?: AbortSignal;
}

export class DependencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DependencyError";
  }
}

const DEFAULT_DELAYS_MS = [2_000, 2_000, 5_000, 10_000, 30_000];

export async function connectDependency<T>(options: DependencyOptions<T>): Promise<T> {
  const { name, target, logger } = options;
  const delays = options.delaysMs ?? DEFAULT_DELAYS_MS;
  for (let attempt = 1; ; attempt += 1) {
    const started = performance.now();
    try {
      const result = await options.attempt();
      logger.info(
        { dependency: name, target, attempt, durationMs: Math.round(performance.now() - started) },
        `${name}: connected to ${target}`,
      );
      return result;
    } catch (error) {
      const fatal = options.fatal?.(error);
      if (fatal) throw new DependencyError(`${name}: ${fatal}`);
      const delayMs = delays[Math.min(attempt - 1, delays.length - 1)] ?? 2_000;
      logger.warn(
        { dependency: name, target, attempt, retryInMs: delayMs, reason: reasonOf(error) },
        `${name}: cannot reach ${target} (${reasonOf(error)}), retrying in ${delayMs / 1000} s (attempt ${attempt})`,
      );
      await sleep(delayMs, undefined, { signal: options.signal });
    }
  }
}

/** The most telling short reason: a system error code (ECONNREFUSED), else the error's own message, shortened. */
export function reasonOf(error: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    const nested = current as { cause?: unknown; error?: unknown; errors?: unknown };
    current = Array.isArray(nested.errors) ? nested.errors[0] : (nested.cause ?? nested.error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 120);
}

/** A URL without credentials, path or query, for logs: scheme and host(s) only (redis:// and redis+sentinel:// too). */
export function originOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:)\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url.trim());
  return match ? `${match[1]}//${match[2]}` : "(invalid URL)";
}
