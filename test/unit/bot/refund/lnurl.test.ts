import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveDestination } from "#src/bot/refund/destination.js";
import { invoiceForAddress, type LnurlError, parseLightningAddress } from "#src/bot/refund/lnurl.js";
import { loadConfig } from "#src/config.js";
import { createLogger } from "#src/log/logger.js";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import { FORBIDDEN_ADDRESSES, familyOf } from "../../../support/forbidden-addresses.ts";
import { LNURL_METADATA, type LnurlServer, startLnurlServer } from "../../../support/lnurl-server.ts";
import { PUBLIC_V4 } from "../../../support/public-https-server.ts";

/**
 * The LNURL-pay resolver against a real local HTTPS server (reached as wallet.test through the guarded fetch's
 * injected resolver) that answers badly in every way a stranger's server may.
 */
describe("Lightning address → invoice (LNURL-pay)", () => {
  let server: LnurlServer;
  let options: { timeoutMs: number; network: LnurlServer["network"] };
  const amountMsat = 2_500_000n;

  beforeAll(async () => {
    server = await startLnurlServer();
    options = { timeoutMs: 1_000, network: server.network };
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server.override = undefined;
    server.dns.delete("evil.test");
  });

  const address = () => parseLightningAddress(server.address("alice"))!;
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return (error as LnurlError).failure;
    }
    throw new Error("expected the resolver to refuse");
  };
  const invoiceOf = (sats: number, descriptionHash?: Buffer) =>
    encodeInvoice({
      amountSats: sats,
      paymentHash: randomBytes(32),
      paymentSecret: randomBytes(32),
      description: "x",
      ...(descriptionHash ? { descriptionHash } : {}),
      timestamp: Math.floor(Date.now() / 1000),
      expirySeconds: 3600,
    });
  const payRequest = (callback: string) => ({
    tag: "payRequest",
    callback,
    minSendable: 1_000,
    maxSendable: 100_000_000,
    metadata: LNURL_METADATA,
  });
  /** Answer `path` with `body` (a string is sent as is). */
  const answer = (path: string, body: unknown, status = 200, headers: Record<string, string> = {}) => {
    server.override = (_request, response, url) => {
      if (url.pathname !== path) return false;
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
      return true;
    };
  };

  it("parses addresses strictly: a user and a host name, no port", () => {
    expect(parseLightningAddress("Ada@Wallet.Example")).toEqual({ user: "ada", domain: "wallet.example" });
    expect(parseLightningAddress("lightning:ada@wallet.example")).toEqual({
      user: "ada",
      domain: "wallet.example",
    });
    expect(parseLightningAddress("ada@127.0.0.1:4000")).toBeUndefined();
    expect(parseLightningAddress("ada@wallet.example:8443")).toBeUndefined();
    expect(parseLightningAddress("ada@[::1]")).toBeUndefined();
    for (const bad of [
      "ada",
      "@wallet.example",
      "ada@wallet",
      "a da@wallet.example",
      "ada@wal_let.example",
    ]) {
      expect(parseLightningAddress(bad)).toBeUndefined();
    }
    expect(parseLightningAddress(`${"a".repeat(65)}@wallet.example`)).toBeUndefined();
  });

  it("fetches the payRequest, calls back with the amount and checks the invoice's amount and metadata hash", async () => {
    const resolved = await invoiceForAddress(address(), amountMsat, options);
    expect(resolved.decoded.amountMsat).toBe(amountMsat);
    expect(resolved.decoded.descriptionHash).toBe(
      createHash("sha256").update(LNURL_METADATA, "utf8").digest("hex"),
    );
    expect(server.requests.slice(-2)).toEqual(["GET /.well-known/lnurlp/alice", "GET /cb?amount=2500000"]);
    // Each request resolved its host once and connected to the address that was checked.
    expect(server.lookups.slice(-2)).toEqual(["wallet.test", "wallet.test"]);
    expect(server.dialled.slice(-2)).toEqual([
      { address: PUBLIC_V4, family: 4 },
      { address: PUBLIC_V4, family: 4 },
    ]);
  });

  it("refuses an invoice for another amount or committing to other metadata", async () => {
    answer("/cb", { pr: invoiceOf(2_501) });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("wrong_amount");
    answer("/cb", { pr: invoiceOf(2_500, createHash("sha256").update("other").digest()) });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("description_mismatch");
    answer("/cb", { pr: "lnbc1notaninvoice" });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("bad_invoice");
  });

  it("refuses bad answers: errors, wrong shapes, non-JSON, out-of-range amounts, redirects", async () => {
    const first = "/.well-known/lnurlp/alice";
    answer(first, { status: "ERROR", reason: "no such user" });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("service_error");
    answer(first, { tag: "withdrawRequest", callback: "x" });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("bad_response");
    answer(first, "<html>hello</html>");
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("bad_response");
    answer(first, [1, 2, 3]);
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("bad_response");
    answer(first, {
      tag: "payRequest",
      callback: `${server.url}/cb`,
      minSendable: 1_000,
      maxSendable: 2_000_000,
      metadata: "[]",
    });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("amount_out_of_range");
    answer(first, "", 302, { location: `${server.url}/.well-known/lnurlp/bob` });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("http_status");
    answer(first, { status: "ERROR" }, 404);
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("http_status");
  });

  it("refuses a callback over plain http", async () => {
    answer("/.well-known/lnurlp/alice", payRequest("http://wallet.test/cb"));
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("insecure_url");
    expect(server.requests.at(-1)).toBe("GET /.well-known/lnurlp/alice");
  });

  it("refuses an address whose host is not public, literal or by name, before any connection", async () => {
    const before = server.connections;
    for (const literal of [
      "127.0.0.1",
      "127.1",
      "0x7f.1",
      "10.0.0.1",
      "169.254.169.254",
      "100.100.100.200",
    ]) {
      const probe = parseLightningAddress(`probe@${literal}`);
      expect(probe, literal).toBeDefined();
      expect(await failure(invoiceForAddress(probe!, amountMsat, options)), literal).toBe("forbidden_host");
    }
    for (const [what, bad] of FORBIDDEN_ADDRESSES) {
      server.dns.set("evil.test", [{ address: bad, family: familyOf(bad) }]);
      const probe = parseLightningAddress("probe@evil.test")!;
      expect(await failure(invoiceForAddress(probe, amountMsat, options)), what).toBe("forbidden_host");
    }
    expect(server.connections).toBe(before);
    expect(server.requests).not.toContain("GET /.well-known/lnurlp/probe");
  });

  it("refuses a callback whose host is not public, literal or by name, before connecting to it", async () => {
    for (const [what, bad] of FORBIDDEN_ADDRESSES) {
      const literal = familyOf(bad) === 6 ? `[${bad}]` : bad;
      server.dns.set("evil.test", [
        { address: PUBLIC_V4, family: 4 },
        { address: bad, family: familyOf(bad) },
      ]);
      for (const callback of [`https://${literal}/cb`, "https://evil.test/cb"]) {
        answer("/.well-known/lnurlp/alice", payRequest(callback));
        const before = server.connections;
        expect(await failure(invoiceForAddress(address(), amountMsat, options)), `${what}: ${callback}`).toBe(
          "forbidden_host",
        );
        // One connection: the payRequest's. The callback was refused before connecting.
        expect(server.connections, `${what}: ${callback}`).toBe(before + 1);
        expect(server.requests.at(-1)).toBe("GET /.well-known/lnurlp/alice");
      }
    }
  });

  it("stops reading an oversized body, declared or streamed", async () => {
    answer("/.well-known/lnurlp/alice", "x".repeat(200_000));
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("too_large");
    server.override = (_request, response, url) => {
      if (url.pathname !== "/cb") return false;
      response.writeHead(200, { "content-type": "application/json" }); // chunked: no length declared
      for (let i = 0; i < 20; i += 1) response.write("x".repeat(8_192));
      response.end();
      return true;
    };
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("too_large");
  });

  it("the refund flow tells the user about a host that is not public as about one that does not answer", async () => {
    const logged: Array<{ failure?: string }> = [];
    const deps = {
      config: loadConfig({}),
      logger: createLogger({
        level: "info",
        pretty: false,
        destination: { write: (line: string) => logged.push(JSON.parse(line)) },
      }),
      outbound: server.network,
    };
    const expected = { amountSats: 2_500, now: Date.now() };
    const before = server.connections;
    for (const text of ["probe@127.0.0.1", "probe@nowhere.test"]) {
      expect(await resolveDestination(deps, text, expected), text).toEqual({
        ok: false,
        problem: "address_failed",
      });
    }
    expect(logged.map((line) => line.failure)).toEqual(["forbidden_host", "unreachable"]);
    expect(server.connections).toBe(before);
    expect(await resolveDestination(deps, server.address("alice"), expected)).toMatchObject({
      ok: true,
      destinationKind: "address",
      destination: "alice@wallet.test",
    });
  });

  it("gives up on a server that never answers", async () => {
    server.override = () => true; // the request is left hanging
    expect(await failure(invoiceForAddress(address(), amountMsat, { ...options, timeoutMs: 300 }))).toBe(
      "timeout",
    );
  });
});
