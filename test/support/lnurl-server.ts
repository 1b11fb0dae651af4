import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import { type PublicHttpsServer, startPublicHttpsServer } from "./public-https-server.ts";

/**
 * A local LNURL-pay service (LUD-06/16) for tests, over HTTPS as `wallet.test` (see public-https-server.ts for how
 * the guarded fetch reaches it): GET /.well-known/lnurlp/<user> → payRequest, GET /cb?amount=<msat> → a real signet
 * BOLT11 committing to sha256(metadata). Each route's answer can be replaced to test bad services.
 */
export interface LnurlServer extends PublicHttpsServer {
  /** "https://wallet.test" */
  url: string;
  /** "alice@wallet.test" */
  address(user: string): string;
  /** Invoices handed out, in order. */
  invoices: string[];
  /** Replace the answer of a path ("/.well-known/lnurlp/alice", "/cb"); return true when handled. */
  override?: (request: IncomingMessage, response: ServerResponse, url: URL) => boolean | Promise<boolean>;
}

export const LNURL_METADATA = JSON.stringify([["text/plain", "Refunds for alice"]]);
const HOST = "wallet.test";

export async function startLnurlServer(): Promise<LnurlServer> {
  const base = await startPublicHttpsServer([HOST, `pay.${HOST}`], async (request, response, url) => {
    if (state.override && (await state.override(request, response, url))) return;
    answer(state, response, url);
  });
  const state: LnurlServer = Object.assign(base, {
    url: `https://${HOST}`,
    address: (user: string) => `${user}@${HOST}`,
    invoices: [] as string[],
  });
  return state;
}

function answer(state: LnurlServer, response: ServerResponse, url: URL): void {
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
}
