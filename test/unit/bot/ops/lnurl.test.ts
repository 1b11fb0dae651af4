import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { invoiceForAddress, type LnurlError, parseLightningAddress } from "#src/bot/ops/refund/lnurl.js";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import { LNURL_METADATA, type LnurlServer, startLnurlServer } from "../../../support/lnurl-server.ts";

/** The LNURL-pay resolver against a real local HTTP server that answers badly in every way a stranger's server may. */
describe("Lightning address → invoice (LNURL-pay)", () => {
  let server: LnurlServer;
  const options = { allowHttpLoopback: true, timeoutMs: 1_000 };
  const amountMsat = 2_500_000n;

  beforeAll(async () => {
    server = await startLnurlServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server.override = undefined;
  });

  const address = () => parseLightningAddress(server.address("alice"), options)!;
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
  /** Answer `path` with `body` (a string is sent as is). */
  const answer = (path: string, body: unknown, status = 200, headers: Record<string, string> = {}) => {
    server.override = (_request, response, url) => {
      if (url.pathname !== path) return false;
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
      return true;
    };
  };

  it("parses addresses strictly; loopback hosts only when allowed", () => {
    expect(parseLightningAddress("Ada@Wallet.Example")).toEqual({ user: "ada", domain: "wallet.example" });
    expect(parseLightningAddress("lightning:ada@wallet.example")).toEqual({
      user: "ada",
      domain: "wallet.example",
    });
    expect(parseLightningAddress("ada@127.0.0.1:4000")).toBeUndefined();
    expect(parseLightningAddress("ada@127.0.0.1:4000", { allowHttpLoopback: true })).toEqual({
      user: "ada",
      domain: "127.0.0.1:4000",
    });
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
    answer(first, "", 302, { location: "http://evil.example/.well-known/lnurlp/alice" });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("http_status");
    answer(first, { status: "ERROR" }, 404);
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("http_status");
  });

  it("refuses a callback over plain http to a host that is not loopback, and plain http at all when not allowed", async () => {
    answer("/.well-known/lnurlp/alice", {
      tag: "payRequest",
      callback: "http://wallet.example/cb",
      minSendable: 1_000,
      maxSendable: 100_000_000,
      metadata: LNURL_METADATA,
    });
    expect(await failure(invoiceForAddress(address(), amountMsat, options))).toBe("insecure_url");
    server.override = undefined;
    // Without the test option the same address is only ever tried over https (the plain-http server cannot answer).
    const seen = server.requests.length;
    expect(await failure(invoiceForAddress(address(), amountMsat, { timeoutMs: 1_000 }))).toBe("unreachable");
    expect(server.requests).toHaveLength(seen);
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

  it("gives up on a server that never answers", async () => {
    server.override = () => true; // the request is left hanging
    expect(await failure(invoiceForAddress(address(), amountMsat, { ...options, timeoutMs: 300 }))).toBe(
      "timeout",
    );
  });
});
