import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";

/**
 * A local LNURL-pay service (LUD-06/16) for tests: GET /.well-known/lnurlp/<user> → payRequest, GET /cb?amount=<msat>
 * → a real signet BOLT11 committing to sha256(metadata). Each route's answer can be replaced to test bad services.
 */
export interface LnurlServer {
  url: string;
  /** "alice@127.0.0.1:<port>" */
  address(user: string): string;
  /** Invoices handed out, in order. */
  invoices: string[];
  requests: string[];
  /** Replace the answer of a path ("/.well-known/lnurlp/alice", "/cb"); return true when handled. */
  override?: (request: IncomingMessage, response: ServerResponse, url: URL) => boolean | Promise<boolean>;
  close(): Promise<void>;
}

export const LNURL_METADATA = JSON.stringify([["text/plain", "Refunds for alice"]]);

export async function startLnurlServer(): Promise<LnurlServer> {
  const state: LnurlServer = {
    url: "",
    address: (user) => `${user}@${new URL(state.url).host}`,
    invoices: [],
    requests: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", state.url);
    state.requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (state.override && (await state.override(request, response, url))) return;
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith("/.well-known/lnurlp/")) {
      json(200, {
        tag: "payRequest",
        callback: `${state.url}/cb`,
        minSendable: 1_000,
        maxSendable: 100_000_000_000,
        metadata: LNURL_METADATA,
      });
      return;
    }
    if (url.pathname === "/cb") {
      const msat = Number(url.searchParams.get("amount"));
      const invoice = encodeInvoice({
        amountSats: Math.floor(msat / 1000),
        paymentHash: randomBytes(32),
        paymentSecret: randomBytes(32),
        description: "",
        descriptionHash: createHash("sha256").update(LNURL_METADATA, "utf8").digest(),
        timestamp: Math.floor(Date.now() / 1000),
        expirySeconds: 3600,
      });
      state.invoices.push(invoice);
      json(200, { pr: invoice, routes: [] });
      return;
    }
    json(404, { status: "ERROR", reason: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
