import { createHash } from "node:crypto";
import { type DecodedInvoice, decodeLightningInvoice } from "#src/bot/rules/treasury.js";
import {
  type GuardedFailure,
  GuardedFetchError,
  guardedGet,
  type OutboundNetwork,
} from "#src/http/guarded-fetch.js";

/**
 * Lightning address → invoice through LNURL-pay (LUD-16 / LUD-06): GET https://<domain>/.well-known/lnurlp/<user>,
 * then the service's callback with the amount in millisats, which answers with a BOLT11 `pr`. Every answer comes
 * from a stranger's server and both hosts are a stranger's choice, so both requests go through guardedGet (https,
 * public addresses only, pinned, no redirects, time and size caps), and the returned invoice is checked for the
 * exact amount and (when present) the hash of the metadata it commits to.
 */
type LnurlFailure =
  | GuardedFailure
  | "bad_address"
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
  /** Per request (resolving, headers and body). Default 10 s. */
  timeoutMs?: number;
  /** Per response body. Default 64 KiB (a payRequest is a few hundred bytes). */
  maxBytes?: number;
  /** Injected by tests (a resolver, a local server); production uses the system's DNS. */
  network?: OutboundNetwork;
}

export interface LightningAddress {
  user: string;
  /** A host name; IP literals pass here and are refused by the fetch, like any other host that is not public. */
  domain: string;
}

const USER = /^[a-z0-9._+-]{1,64}$/;
const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** "Ada@Wallet.example" → {user: "ada", domain: "wallet.example"}; undefined when it is not an address. */
export function parseLightningAddress(text: string): LightningAddress | undefined {
  const value = text
    .trim()
    .replace(/^lightning:/i, "")
    .toLowerCase();
  if (value.length > 320) return undefined;
  const at = value.lastIndexOf("@");
  if (at <= 0) return undefined;
  const user = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!USER.test(user) || !HOSTNAME.test(domain)) return undefined;
  return { user, domain };
}

async function getJson(url: URL | string, options: LnurlOptions): Promise<Record<string, unknown>> {
  let body: Buffer;
  try {
    body = await guardedGet(url, {
      accept: "application/json",
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: options.maxBytes ?? 64 * 1024,
      ...options.network,
    });
  } catch (error) {
    if (error instanceof GuardedFetchError) throw new LnurlError(error.failure, error.detail);
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
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
  // A string: a domain such as 256.1.1.1 passes the name pattern yet is no URL, and guardedGet says so.
  const first = `https://${address.domain}/.well-known/lnurlp/${encodeURIComponent(address.user)}`;
  const payRequest = await getJson(first, options);
  if (payRequest.tag !== "payRequest") throw new LnurlError("bad_response", "not a payRequest");
  if (typeof payRequest.callback !== "string") throw new LnurlError("bad_response", "callback missing");
  if (typeof payRequest.metadata !== "string") throw new LnurlError("bad_response", "metadata missing");
  const min = msatField(payRequest, "minSendable");
  const max = msatField(payRequest, "maxSendable");
  if (amountMsat < min || amountMsat > max) throw new LnurlError("amount_out_of_range");

  let callback: URL;
  try {
    callback = new URL(payRequest.callback);
  } catch {
    throw new LnurlError("bad_response", "callback is not a URL");
  }
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
