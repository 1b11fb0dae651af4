import type { LookupAddress } from "node:dns";
import { lookup as systemLookup } from "node:dns/promises";
import { isIP, isIPv4, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, type Dispatcher, request } from "undici";

/**
 * GET from a host a user named (a Lightning address's domain, the callback its service returns): the bot must not
 * become a way into its own network. https only; no IP literal; the name is resolved once and every address it has
 * must be public (no loopback, private, link-local, CGNAT, multicast, reserved or documentation range, cloud
 * metadata, nor an IPv6 form that embeds such an IPv4); the connection is pinned to the checked addresses, so a
 * second DNS answer (rebinding) is never asked for; a redirect is a failure; time and size are capped.
 */
export type GuardedFailure =
  | "insecure_url"
  | "forbidden_host"
  | "unreachable"
  | "timeout"
  | "http_status"
  | "too_large";

export class GuardedFetchError extends Error {
  constructor(
    readonly failure: GuardedFailure,
    readonly detail?: string,
  ) {
    super(detail ? `${failure}: ${detail}` : failure);
    this.name = "GuardedFetchError";
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A name → every address it has (the system resolver unless a test injects its own). */
type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * Tests only, never from config: a connection pinned to a checked address goes to a local TLS server instead,
 * trusting that server's certificate authority. The name still travels as SNI and Host.
 */
interface TestDial {
  to(pinned: ResolvedAddress): { host: string; port: number };
  ca: string;
}

/** How outbound fetches reach the outside: production leaves both unset (system DNS, public TLS roots). */
export interface OutboundNetwork {
  resolve?: Resolver;
  dial?: TestDial;
}

interface GuardedGetOptions extends OutboundNetwork {
  accept: string;
  /** For the whole fetch: resolving, connecting, headers and body. */
  timeoutMs: number;
  maxBytes: number;
}

const systemResolver: Resolver = async (hostname) =>
  (await systemLookup(hostname, { all: true, order: "verbatim" })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** IPv6 prefixes whose last 32 bits are an IPv4 address the packet ends up at: judged as that IPv4. */
const EMBEDS_IPV4 = ["::ffff:0:0/96", "::/96", "64:ff9b::/96", "::ffff:0:0:0/96"].map((cidr) =>
  ipaddr.IPv6.parseCIDR(cidr),
);
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

/** Why `address` must not be reached, or undefined when it is an ordinary public unicast address. */
function forbiddenRange(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    if (!isIP(address)) return "not an address";
    parsed = ipaddr.parse(address);
  } catch {
    return "not an address";
  }
  if (parsed.kind() === "ipv4") {
    const range = (parsed as ipaddr.IPv4).range();
    return range === "unicast" ? undefined : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  if (EMBEDS_IPV4.some((cidr) => v6.match(cidr))) {
    const embedded = ipaddr.fromByteArray(v6.toByteArray().slice(12)) as ipaddr.IPv4;
    const range = embedded.range();
    return range === "unicast" ? undefined : `embedded ${range}`;
  }
  const range = v6.range();
  if (range !== "unicast") return range;
  return v6.match(GLOBAL_UNICAST) ? undefined : "not global unicast";
}

/** The URL when it is https to a name. The URL parser has already spelled 127.1, 0x7f.1, 2130706433 as a.b.c.d. */
function checkedUrl(raw: URL | string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GuardedFetchError("insecure_url", "not a URL");
  }
  if (url.protocol !== "https:") throw new GuardedFetchError("insecure_url", url.protocol);
  if (url.username || url.password) throw new GuardedFetchError("insecure_url", "credentials in URL");
  if (url.hostname.startsWith("[") || isIPv4(url.hostname)) {
    throw new GuardedFetchError("forbidden_host", "IP literal");
  }
  return url;
}

/** Resolve once and check every address: one private answer among public ones refuses the name. */
async function publicAddresses(
  name: string,
  resolve: Resolver,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await untilAborted(resolve(name), signal);
  } catch (error) {
    throw classifyNetworkError(error);
  }
  if (addresses.length === 0) throw new GuardedFetchError("unreachable", "no address");
  for (const { address } of addresses) {
    const range = forbiddenRange(address);
    if (range) throw new GuardedFetchError("forbidden_host", range);
  }
  return addresses;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One connection pool whose every lookup answers with the checked addresses, whatever DNS would say now. */
function pinnedAgent(name: string, addresses: ResolvedAddress[], options: GuardedGetOptions): Agent {
  const { dial } = options;
  const dialled = dial ? addresses.map((pinned) => dial.to(pinned)) : undefined;
  const targets: LookupAddress[] = dialled
    ? dialled.map(({ host }) => ({ address: host, family: isIP(host) }))
    : addresses.map(({ address, family }) => ({ address, family }));
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    if (hostname !== name) callback(new Error("lookup of an unchecked name"), "", 4);
    else if (lookupOptions.all) callback(null, targets);
    else callback(null, targets[0]!.address, targets[0]!.family);
  };
  const connector = buildConnector({
    allowH2: false,
    timeout: options.timeoutMs,
    lookup,
    ...(dial ? { ca: dial.ca } : {}),
  });
  const port = dialled?.[0]?.port;
  return new Agent({
    connect:
      port === undefined
        ? connector
        : (connect, callback) => connector({ ...connect, port: String(port) }, callback),
  });
}

/**
 * GET `raw` under the rules above; the 2xx body, at most `maxBytes`. Fails with a GuardedFetchError, before any
 * connection when the URL or one of the name's addresses is not allowed.
 */
export async function guardedGet(raw: URL | string, options: GuardedGetOptions): Promise<Buffer> {
  const url = checkedUrl(raw);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const addresses = await publicAddresses(url.hostname, options.resolve ?? systemResolver, signal);
  const agent = pinnedAgent(url.hostname, addresses, options);
  try {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher: agent,
        method: "GET",
        headers: { accept: options.accept },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal,
      });
    } catch (error) {
      throw classifyNetworkError(error);
    }
    const { statusCode, headers, body } = response;
    // Redirects are not followed: a 3xx could point anywhere, and only this URL's host was checked.
    if (statusCode < 200 || statusCode > 299) {
      discard(body);
      throw new GuardedFetchError("http_status", String(statusCode));
    }
    const declared = Number(headers["content-length"]);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      discard(body);
      throw new GuardedFetchError("too_large", `${declared} bytes declared`);
    }
    return await readCapped(body, options.maxBytes);
  } finally {
    agent.destroy().catch(() => undefined);
  }
}

async function readCapped(body: Dispatcher.ResponseData["body"], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        discard(body);
        throw new GuardedFetchError("too_large", `more than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof GuardedFetchError) throw error;
    throw classifyNetworkError(error);
  }
  return Buffer.concat(chunks);
}

/** Stop reading a body we will not use; the abort it causes is expected, not an error to report. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => undefined);
  body.destroy();
}

function classifyNetworkError(error: unknown): GuardedFetchError {
  const name = error instanceof Error ? error.name : "";
  const code = (error as { code?: string } | undefined)?.code ?? "";
  if (
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  ) {
    return new GuardedFetchError("timeout");
  }
  return new GuardedFetchError("unreachable", code || name);
}
