import type { z } from "zod";
import { kindOfMessage, kindOfStatus, PayoutApiError, type PayoutApiErrorKind } from "./errors.ts";
import { parseRetryAfter } from "./retry.ts";

/**
 * What the payout API's answer means (envelope, status, schema) or what a failed request means (could it have
 * reached the server?), as a value or a PayoutApiError; http.ts sends, retries and observes.
 */

export interface Answer {
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

export function transportError(caught: unknown, method: string, endpoint: string): PayoutApiError {
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
    outcomeUnknown: method !== "GET" && !connectFailure,
    cause: caught,
  });
}

export function interpretAnswer<T>(
  answer: Answer,
  call: { method: string; schema: z.ZodType<T> },
  endpoint: string,
  clean: (text: string | undefined) => string | undefined,
): T {
  const json = parseJson(answer.text);
  const apiMessage = clean(messageOf(json.value));
  const mutating = call.method !== "GET";
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
  const parsed = call.schema.safeParse(json.value.data);
  if (!parsed.success) throw unreadable(`unexpected data: ${summariseIssues(parsed.error)}`);
  return parsed.data;
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

export function isConnectFailure(error: unknown): boolean {
  const code = errorCode(error);
  if (code && CONNECT_CODES.has(code)) return true;
  return (error as { syscall?: unknown } | undefined)?.syscall === "connect";
}
