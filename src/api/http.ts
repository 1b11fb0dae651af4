import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import type { z } from "zod";
import type { Logger } from "../log/logger.ts";
import { scrubText } from "../log/mask.ts";
import { kindOfMessage, kindOfStatus, PayoutApiError, type PayoutApiErrorKind } from "./errors.ts";
import { backoffDelay, parseRetryAfter, type RetryPolicy } from "./retry.ts";
import type { ServerClock } from "./server-clock.ts";

/**
 * The HTTP layer: one keep-alive undici Pool per API origin, JSON in and out, envelope unwrapping, error mapping,
 * retries. Knows nothing of endpoints; client.ts does.
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

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Errors raised while connecting: the request was never written. */
const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

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
        const result = this.interpret(answer, spec, endpoint);
        const durationMs = Math.round(performance.now() - started);
        this.observe(endpoint, "ok", started);
        this.options.logger.debug(
          { endpoint, status: answer.status, durationMs, attempt },
          "payout api call",
        );
        return result;
      } catch (caught) {
        const error = caught instanceof PayoutApiError ? caught : this.transportError(caught, spec, endpoint);
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

  private transportError<T>(caught: unknown, spec: CallSpec<T>, endpoint: string): PayoutApiError {
    const code = errorCode(caught);
    const connectFailure = isConnectFailure(caught);
    const kind: PayoutApiErrorKind = code && TIMEOUT_CODES.has(code) ? "timeout" : "network";
    const what = code ?? (caught instanceof Error ? caught.name : "unknown error");
    // Anything after connecting may have happened after the request left: the outcome of a POST is unknown.
    const detail = connectFailure
      ? `could not connect to the payout API (${what})`
      : `the connection failed before a complete answer (${what})`;
    return new PayoutApiError({
      kind,
      endpoint,
      detail,
      outcomeUnknown: spec.method !== "GET" && !connectFailure,
      cause: caught,
    });
  }

  private interpret<T>(answer: Answer, spec: CallSpec<T>, endpoint: string): T {
    const json = parseJson(answer.text);
    const apiMessage = this.clean(messageOf(json.value));
    const mutating = spec.method !== "GET";
    if (answer.status < 200 || answer.status >= 300) {
      const kind = kindOfStatus(answer.status);
      throw new PayoutApiError({
        kind,
        endpoint,
        status: answer.status,
        apiMessage,
        detail: apiMessage ?? `HTTP ${answer.status} with ${describeBody(answer, json.ok)}`,
        retryAfterMs: kind === "rate_limited" ? parseRetryAfter(answer.headers["retry-after"]) : undefined,
        outcomeUnknown: mutating && kind === "server",
      });
    }
    const unreadable = (detail: string) =>
      new PayoutApiError({
        kind: "invalid_response",
        endpoint,
        status: answer.status,
        detail,
        outcomeUnknown: mutating,
      });
    if (!json.ok) throw unreadable(`expected JSON, got ${describeBody(answer, false)}`);
    if (!isRecord(json.value)) throw unreadable("the body is not a JSON object");
    const status = json.value.status;
    if (status === "error") {
      throw new PayoutApiError({
        kind: kindOfMessage(apiMessage),
        endpoint,
        status: answer.status,
        apiMessage,
        detail: apiMessage ?? `"status":"error" without a message`,
      });
    }
    if (status !== undefined && status !== "ok" && status !== "success")
      throw unreadable(`unexpected envelope status ${JSON.stringify(String(status).slice(0, 40))}`);
    if (status === undefined && !("data" in json.value))
      throw unreadable("no envelope (status/data) in the body");
    const parsed = spec.schema.safeParse(json.value.data);
    if (!parsed.success) throw unreadable(`unexpected data: ${summariseIssues(parsed.error)}`);
    return parsed.data;
  }

  /** The API key must never travel inside an error, even if an API echoed it; long digit runs are masked. */
  private clean(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const withoutKey = this.options.apiKey ? text.split(this.options.apiKey).join("[redacted]") : text;
    return scrubText(withoutKey);
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; value: undefined } {
  if (text.trim() === "") return { ok: false, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function messageOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of ["message", "error"]) {
    const candidate = value[key];
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate.trim().slice(0, 300);
  }
  return undefined;
}

function describeBody(answer: Answer, isJson: boolean): string {
  if (isJson) return "a JSON body";
  if (answer.text.trim() === "") return "an empty body";
  const type = String(answer.headers["content-type"] ?? "");
  if (/html/i.test(type) || /^\s*</.test(answer.text)) return "an HTML page (a proxy or server error page?)";
  return type.includes("json") ? "malformed JSON" : `a non-JSON body (${type || "no content-type"})`;
}

function summariseIssues(error: z.ZodError): string {
  // Paths and messages only: values could be account numbers.
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

function errorCode(error: unknown): string | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === "string") return record.code;
  if (Array.isArray(record.errors)) return errorCode(record.errors[0]);
  if (record.cause) return errorCode(record.cause);
  return undefined;
}

function isConnectFailure(error: unknown): boolean {
  const code = errorCode(error);
  if (code && CONNECT_CODES.has(code)) return true;
  return (error as { syscall?: unknown } | undefined)?.syscall === "connect";
}
