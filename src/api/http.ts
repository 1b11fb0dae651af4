import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import type { z } from "zod";
import type { Logger } from "#src/log/logger.js";
import { scrubText } from "#src/log/mask.js";
import { type Answer, interpretAnswer, isConnectFailure, transportError } from "./answer.ts";
import { PayoutApiError, type PayoutApiErrorKind } from "./errors.ts";
import { backoffDelay, type RetryPolicy } from "./retry.ts";
import type { ServerClock } from "./server-clock.ts";

/**
 * The HTTP layer: one keep-alive undici Pool per API origin, JSON in and out, retries; what an answer or a failure
 * means (envelope, error mapping) is answer.ts. Knows nothing of endpoints; client.ts does.
 */

export interface HttpTimeouts {
  /** Establishing the TCP/TLS connection. */
  connectMs: number;
  /** From sending to the response headers. */
  headersMs: number;
  /** Between body chunks. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { connectMs: 5_000, headersMs: 20_000, bodyMs: 20_000 };

/**
 * How a call may be repeated. "idempotent" (GET, PUT /webhook): after network errors, timeouts, 5xx and 429.
 * "before-send-only" (every POST; money moves or resources get created): only when the connection was never
 * established, so the request provably did not reach the server.
 */
type Replay = "idempotent" | "before-send-only";

export interface CallSpec<T> {
  method: "GET" | "POST" | "PUT";
  /** Relative to the base URL: "/quote". */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  schema: z.ZodType<T>;
  replay: Replay;
  /** Overrides the policy's attempts (ping uses 1). */
  attempts?: number;
}

/** One HTTP request to the payout API, as seen by an observer (metrics): every attempt, retries included. */
export interface PayoutApiCall {
  /** The route template, never an id: "POST /quote", "GET /order" (ids travel in the query). */
  endpoint: string;
  outcome: "ok" | PayoutApiErrorKind;
  seconds: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  logger: Logger;
  timeouts: HttpTimeouts;
  retry: RetryPolicy;
  connections: number;
  keepAliveMs: number;
  /** Fed with every response's Date header (the API's clock). */
  clock?: ServerClock;
  /** Told about every request once its outcome is known; must not throw. */
  observe?: (call: PayoutApiCall) => void;
}

export class HttpTransport {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly closing = new AbortController();

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("baseUrl must be http(s)");
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      keepAliveTimeout: options.keepAliveMs,
      connectTimeout: options.timeouts.connectMs,
      headersTimeout: options.timeouts.headersMs,
      bodyTimeout: options.timeouts.bodyMs,
    });
  }

  async call<T>(spec: CallSpec<T>): Promise<T> {
    const endpoint = `${spec.method} ${spec.path}`;
    const attempts = Math.max(1, spec.attempts ?? this.options.retry.attempts);
    for (let attempt = 1; ; attempt += 1) {
      const started = performance.now();
      try {
        const answer = await this.send(spec);
        const result = interpretAnswer(answer, spec, endpoint, (text) => this.clean(text));
        const durationMs = Math.round(performance.now() - started);
        this.observe(endpoint, "ok", started);
        this.options.logger.debug(
          { endpoint, status: answer.status, durationMs, attempt },
          "payout api call",
        );
        return result;
      } catch (caught) {
        const error =
          caught instanceof PayoutApiError ? caught : transportError(caught, spec.method, endpoint);
        this.observe(endpoint, error.kind, started);
        const retryInMs = attempt < attempts ? this.retryDelay(error, spec, attempt) : undefined;
        this.options.logger.debug(
          {
            endpoint,
            status: error.status,
            kind: error.kind,
            durationMs: Math.round(performance.now() - started),
            attempt,
            retryInMs,
          },
          "payout api call failed",
        );
        if (retryInMs === undefined || this.closing.signal.aborted) throw error;
        try {
          await sleep(retryInMs, undefined, { signal: this.closing.signal });
        } catch {
          throw error;
        }
      }
    }
  }

  private observe(endpoint: string, outcome: PayoutApiCall["outcome"], started: number): void {
    this.options.observe?.({ endpoint, outcome, seconds: (performance.now() - started) / 1000 });
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.pool.close();
  }

  private async send<T>(spec: CallSpec<T>): Promise<Answer> {
    const headers: Record<string, string> = {
      "X-API-KEY": this.options.apiKey,
      Accept: "application/json",
    };
    if (spec.body !== undefined) headers["Content-Type"] = "application/json";
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(spec.query ?? {}))
      if (value !== undefined) query.set(key, value);
    const search = query.size > 0 ? `?${query}` : "";
    const sentAt = Date.now();
    const response = await this.pool.request({
      method: spec.method,
      path: `${this.basePath}${spec.path}${search}`,
      headers,
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    });
    this.options.clock?.observe(response.headers.date, sentAt, Date.now());
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  }

  private retryDelay<T>(error: PayoutApiError, spec: CallSpec<T>, attempt: number): number | undefined {
    const policy = this.options.retry;
    // The connection was never established, so nothing was sent: safe to repeat any method.
    if (isConnectFailure(error.cause)) return backoffDelay(attempt, policy);
    if (spec.replay !== "idempotent") return undefined;
    switch (error.kind) {
      case "rate_limited":
        if (error.retryAfterMs === undefined) return backoffDelay(attempt, policy);
        return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : undefined;
      case "network":
      case "timeout":
      case "server":
        return backoffDelay(attempt, policy);
      default:
        return undefined;
    }
  }

  /** The API key must never travel inside an error, even if an API echoed it; long digit runs are masked. */
  private clean(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const withoutKey = this.options.apiKey ? text.split(this.options.apiKey).join("[redacted]") : text;
    return scrubText(withoutKey);
  }
}
