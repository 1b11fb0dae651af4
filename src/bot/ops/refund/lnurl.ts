import { createHash } from "node:crypto";
import { request } from "undici";
import { type DecodedInvoice, decodeLightningInvoice } from "#src/bot/ops/treasury/treasury.js";

/**
 * Lightning address → invoice through LNURL-pay (LUD-16 / LUD-06): GET https://<domain>/.well-known/lnurlp/<user>,
 * then the service's callback with the amount in millisats, which answers with a BOLT11 `pr`. Every answer comes
 * from a stranger's server, so: https only (plain http only to a loopback host, and only when the caller allows
 * it — tests), no redirects, a timeout on each request, a cap on each body, and the returned invoice is checked
 * for the exact amount and (when present) the hash of the metadata it commits to.
 */
type LnurlFailure =
  | "bad_address"
  | "insecure_url"
  | "unreachable"
  | "timeout"
  | "http_status"
  | "too_large"
  | "bad_response"
  | "service_error"
  | "amount_out_of_range"
  | "bad_invoice"
  | "wrong_amount"
  | "description_mismatch";

export class LnurlError extends Error {
  constructor(
    readonly failure: LnurlFailure,
    detail?: string,
  ) {
    super(detail ? `${failure}: ${detail}` : failure);
    this.name = "LnurlError";
  }
}

interface LnurlOptions {
  /** Allow http:// to 127.0.0.1, ::1 or localhost (tests with a local LNURL server). Never in production. */
  allowHttpLoopback?: boolean;
  /** Per request (headers and body). Default 10 s. */
  timeoutMs?: number;
  /** Per response body. Default 64 KiB (a payRequest is a few hundred bytes). */
  maxBytes?: number;
}

export interface LightningAddress {
  user: string;
  /** Host, with a port only for loopback test servers. */
  domain: string;
}

const USER = /^[a-z0-9._+-]{1,64}$/;
const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** "Ada@Wallet.example" → {user: "ada", domain: "wallet.example"}; undefined when it is not an address. */
export function parseLightningAddress(
  text: string,
  options: LnurlOptions = {},
): LightningAddress | undefined {
  const value = text
    .trim()
    .replace(/^lightning:/i, "")
    .toLowerCase();
  if (value.length > 320) return undefined;
  const at = value.lastIndexOf("@");
  if (at <= 0) return undefined;
  const user = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!USER.test(user)) return undefined;
  if (HOSTNAME.test(domain)) return { user, domain };
  const loopback = /^(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/.exec(domain);
  if (options.allowHttpLoopback && loopback) return { user, domain };
  return undefined;
}

function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname);
}

function checkUrl(raw: string, options: LnurlOptions): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LnurlError("bad_response", "callback is not a URL");
  }
  if (url.username || url.password) throw new LnurlError("insecure_url", "credentials in URL");
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && options.allowHttpLoopback && isLoopback(url)) return url;
  throw new LnurlError("insecure_url", url.protocol);
}

async function getJson(url: URL, options: LnurlOptions): Promise<Record<string, unknown>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: "GET",
      headers: { accept: "application/json" },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw classifyNetworkError(error);
  }
  const { statusCode, headers, body } = response;
  if (statusCode !== 200) {
    // Redirects are not followed: a 3xx could send us to plain http or somewhere else entirely.
    discard(body);
    throw new LnurlError("http_status", String(statusCode));
  }
  const declared = Number(headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw new LnurlError("too_large", `${declared} bytes declared`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        discard(body);
        throw new LnurlError("too_large", `more than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof LnurlError) throw error;
    throw classifyNetworkError(error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new LnurlError("bad_response", "not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new LnurlError("bad_response", "not a JSON object");
  }
  const record = parsed as Record<string, unknown>;
  if (typeof record.status === "string" && record.status.toUpperCase() === "ERROR") {
    throw new LnurlError("service_error");
  }
  return record;
}

/** Stop reading a body we will not use; the abort it causes is expected, not an error to report. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on("error", () => undefined);
  body.destroy();
}

function classifyNetworkError(error: unknown): LnurlError {
  const name = error instanceof Error ? error.name : "";
  const code = (error as { code?: string } | undefined)?.code ?? "";
  if (
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT"
  ) {
    return new LnurlError("timeout");
  }
  return new LnurlError("unreachable", code || name);
}

function msatField(record: Record<string, unknown>, name: string): bigint {
  const value = record[name];
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new LnurlError("bad_response", `${name} missing`);
}

interface ResolvedInvoice {
  invoice: string;
  decoded: DecodedInvoice;
}

/**
 * Ask the address's LNURL-pay service for an invoice of exactly `amountMsat`, and check what comes back. The
 * caller still checks the network and expiry, as for a pasted invoice.
 */
export async function invoiceForAddress(
  address: LightningAddress,
  amountMsat: bigint,
  options: LnurlOptions = {},
): Promise<ResolvedInvoice> {
  const scheme = options.allowHttpLoopback && /^(127\.0\.0\.1|localhost|\[::1\]):/.test(address.domain);
  const first = checkUrl(
    `${scheme ? "http" : "https"}://${address.domain}/.well-known/lnurlp/${encodeURIComponent(address.user)}`,
    options,
  );
  const payRequest = await getJson(first, options);
  if (payRequest.tag !== "payRequest") throw new LnurlError("bad_response", "not a payRequest");
  if (typeof payRequest.callback !== "string") throw new LnurlError("bad_response", "callback missing");
  if (typeof payRequest.metadata !== "string") throw new LnurlError("bad_response", "metadata missing");
  const min = msatField(payRequest, "minSendable");
  const max = msatField(payRequest, "maxSendable");
  if (amountMsat < min || amountMsat > max) throw new LnurlError("amount_out_of_range");

  const callback = checkUrl(payRequest.callback, options);
  callback.searchParams.set("amount", amountMsat.toString());
  const answer = await getJson(callback, options);
  if (typeof answer.pr !== "string" || answer.pr.length > 2048)
    throw new LnurlError("bad_response", "pr missing");
  const decoded = decodeLightningInvoice(answer.pr);
  if (!decoded) throw new LnurlError("bad_invoice");
  if (decoded.amountMsat !== amountMsat) throw new LnurlError("wrong_amount");
  if (decoded.descriptionHash !== undefined) {
    const expected = createHash("sha256").update(payRequest.metadata, "utf8").digest("hex");
    if (decoded.descriptionHash !== expected) throw new LnurlError("description_mismatch");
  }
  return { invoice: decoded.invoice, decoded };
}
