import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import type { Logger } from "#src/log/logger.js";
import { closeGracefully, listen } from "./listen.ts";

/**
 * The metrics listener: GET /metrics and nothing else, on its own port (METRICS_PORT), bound to loopback unless
 * METRICS_HOST says otherwise (compose binds it inside the container, unpublished, for its Prometheus). The public
 * port serves /metrics only with a bearer token (server.ts), so the process's internals are not the internet's.
 */
export interface MetricsServer {
  readonly server: Server;
  start(): Promise<{ port: number; url: string }>;
  stop(graceMs?: number): Promise<void>;
}

export function createMetricsServer(options: {
  logger: Logger;
  registry: Registry;
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
}): MetricsServer {
  const { logger, registry } = options;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== "/metrics" || req.method !== "GET") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    sendMetrics(res, registry).catch((error: unknown) => {
      logger.error({ err: error }, "metrics scrape failed");
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  return {
    server,
    async start() {
      const listening = await listen(server, options.port, options.host);
      logger.info({ port: listening.port }, "metrics listener listening");
      return listening;
    },
    stop: (graceMs = 2_000) => closeGracefully(server, graceMs),
  };
}

export async function sendMetrics(res: ServerResponse, registry: Registry): Promise<void> {
  const body = await registry.metrics();
  res.writeHead(200, { "content-type": registry.contentType });
  res.end(body);
}

/**
 * Whether an Authorization header carries `Bearer <token>`. Both sides are hashed first, so the comparison takes the
 * same time whatever the received value's length or content.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "");
  const digest = (value: string) => createHash("sha256").update(value).digest();
  const matches = timingSafeEqual(digest(match?.[1] ?? ""), digest(token));
  return match !== null && token !== "" && matches;
}
