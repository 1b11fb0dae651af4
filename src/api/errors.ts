import { scrubText } from "#src/log/mask.js";

export const PAYOUT_API_ERROR_KINDS = [
  "auth",
  "validation",
  "not_found",
  "rate_limited",
  "server",
  "network",
  "timeout",
  "invalid_response",
] as const;
export type PayoutApiErrorKind = (typeof PAYOUT_API_ERROR_KINDS)[number];

interface PayoutApiErrorInit {
  kind: PayoutApiErrorKind;
  /** "POST /quote" */
  endpoint: string;
  /** What went wrong, without secrets; the message is built from it. */
  detail: string;
  status?: number;
  apiMessage?: string;
  retryAfterMs?: number;
  outcomeUnknown?: boolean;
  cause?: unknown;
}

/**
 * Every failure of the payout API client. `kind` is what callers branch on:
 * - auth (401/403), validation (400 and other 4xx, a 200 with "status":"error", or a request we refused to send),
 *   not_found (404), rate_limited (429, `retryAfterMs` when the API said), server (5xx),
 * - network (refused, reset), timeout (connect, headers or body), invalid_response (2xx we cannot read).
 * `outcomeUnknown` is true when a non-GET may have been carried out although we got no usable answer
 * (a timeout or reset after sending, a 5xx, an unreadable 2xx): reconcile by reading, never resend blindly.
 */
export class PayoutApiError extends Error {
  override readonly name = "PayoutApiError";
  readonly kind: PayoutApiErrorKind;
  readonly status: number | undefined;
  readonly apiMessage: string | undefined;
  readonly endpoint: string;
  readonly retryAfterMs: number | undefined;
  readonly outcomeUnknown: boolean;

  constructor(init: PayoutApiErrorInit) {
    const status = init.status === undefined ? "" : ` ${init.status}`;
    super(scrubText(`${init.endpoint} failed (${init.kind}${status}): ${init.detail}`), {
      cause: init.cause,
    });
    this.kind = init.kind;
    this.status = init.status;
    this.apiMessage = init.apiMessage;
    this.endpoint = init.endpoint;
    this.retryAfterMs = init.retryAfterMs;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }
}

export function isPayoutApiError(error: unknown): error is PayoutApiError {
  return error instanceof PayoutApiError;
}

/** HTTP status → kind for non-2xx answers. */
export function kindOfStatus(status: number): PayoutApiErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server";
  return "validation";
}

/** A 200 with "status":"error" has no code to go by: guess from the documented messages, else validation. */
export function kindOfMessage(message: string | undefined): PayoutApiErrorKind {
  if (!message) return "validation";
  if (/rate limit|too many requests/i.test(message)) return "rate_limited";
  if (/api key|unauthori[sz]ed|forbidden/i.test(message)) return "auth";
  if (/not found/i.test(message)) return "not_found";
  return "validation";
}
