/** Backoff and Retry-After arithmetic for the payout API client. */

export interface RetryPolicy {
  /** Total tries per call, first included. */
  attempts: number;
  /** First backoff step; doubled per retry, jittered. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A 429 asking to wait longer than this is not retried: the error (with retryAfterMs) goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 10_000,
};

/** "Equal jitter": half the exponential step fixed, half random, so retries spread but never bunch at zero. */
export function backoffDelay(
  retryNumber: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** Retry-After as delta-seconds or an HTTP date → milliseconds (never negative); undefined if absent or junk. */
export function parseRetryAfter(
  header: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
