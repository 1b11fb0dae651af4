import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { OutboundNetwork, ResolvedAddress } from "#src/http/guarded-fetch.js";
import { selfSignedCertificate } from "./tls-cert.ts";

/**
 * A local HTTPS server that the guarded fetch (src/http/guarded-fetch.ts) reaches as if it were a public host:
 * `network` is the test-only escape the fetch takes — a resolver answering from `dns`, and a dial that sends
 * every connection pinned to a checked address here, trusting this server's self-signed certificate. Counts TCP
 * connections, so a test can show a refused host was refused before any connection.
 */
export interface PublicHttpsServer {
  port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** "GET /path?query" of every request, in order. */
  requests: string[];
  /** What the injected resolver answers per name; a name missing here does not resolve. */
  dns: Map<string, ResolvedAddress[]>;
  /** Names the resolver was asked for, in order. */
  lookups: string[];
  /** The checked addresses connections were pinned to, in order. */
  dialled: ResolvedAddress[];
  network: OutboundNetwork;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => void | Promise<void>;

/** Public addresses (not in any special range). Never dialled: the test dial sends every connection here. */
export const PUBLIC_V4 = "93.184.215.14";
export const PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c";

/** Serves `names` (each resolving to PUBLIC_V4 unless a test changes `dns`) with `handler`. */
export async function startPublicHttpsServer(names: string[], handler: Handler): Promise<PublicHttpsServer> {
  const { cert, key } = selfSignedCertificate(names);
  let connections = 0;
  const server = createServer({ cert, key }, async (request, response) => {
    const url = new URL(request.url ?? "/", `https://${request.headers.host ?? names[0]}`);
    state.requests.push(`${request.method} ${url.pathname}${url.search}`);
    await handler(request, response, url);
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const state: PublicHttpsServer = {
    port,
    get connections() {
      return connections;
    },
    requests: [],
    dns: new Map(names.map((name) => [name, [{ address: PUBLIC_V4, family: 4 as const }]])),
    lookups: [],
    dialled: [],
    network: {
      resolve: async (name) => {
        state.lookups.push(name);
        const addresses = state.dns.get(name);
        if (!addresses)
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
        return addresses;
      },
      dial: {
        ca: cert,
        to: (pinned) => {
          state.dialled.push(pinned);
          return { host: "127.0.0.1", port };
        },
      },
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}
