import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "#src/log/logger.js";
import type { Faults } from "#src/standins/sandbox/faults.js";
import { ApiError } from "./errors.ts";
import type { HandlerResult, Router } from "./router.ts";

export const API_PREFIX = "/api/v1";
const MAX_BODY_BYTES = 1024 * 1024;

interface HttpDeps {
  router: Router;
  faults: Faults;
  logger: Logger;
  /** The key requests must carry (read per request: /_sandbox/reset may not change it, but be safe). */
  apiKey: () => string;
  /** Runs before each request: timed work that real time made due. */
  beforeRequest: () => void;
  /** The sandbox clock: every response's Date header tells it, as a real server's tells its own clock. */
  now: () => number;
}

interface HttpServer {
  server: Server;
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/** node:http plumbing: routing, faults, auth, JSON bodies, envelopes, and socket bookkeeping. */
export function createHttpServer(deps: HttpDeps): HttpServer {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    res.setHeader("date", new Date(deps.now()).toUTCString());
    handle(deps, req, res).catch((error: unknown) => {
      deps.logger.error({ err: error }, "sandbox request crashed");
      if (!res.headersSent) send(res, { status: 500, body: errorBody("Internal server error") });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address();
          resolve(typeof address === "object" && address ? address.port : port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Hung requests and idle keep-alive sockets must not keep close() waiting.
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function errorBody(message: string) {
  return { status: "error", message };
}

async function handle(deps: HttpDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const url = new URL(req.url ?? "/", "http://sandbox.local");
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
  deps.beforeRequest();

  const match = deps.router.match(method, path);
  if (match.kind === "not-found") {
    return send(res, { status: 404, body: errorBody(`Route not found: ${method} ${path}`) });
  }
  if (match.kind === "method-not-allowed") {
    return send(res, {
      status: 405,
      body: errorBody(`Method not allowed: ${method} ${path} (allowed: ${match.allowed.join(", ")})`),
      headers: { allow: match.allowed.join(", ") },
    });
  }

  const fault = path.startsWith(`${API_PREFIX}/`)
    ? deps.faults.take(method, path.slice(API_PREFIX.length))
    : undefined;
  if (fault?.mode === "hang") {
    deps.logger.info({ method, path }, "sandbox fault: hanging request");
    return;
  }
  if (fault?.mode === "500") {
    return send(res, { status: 500, body: errorBody("Internal server error (sandbox fault)") });
  }
  if (fault?.mode === "429") {
    return send(res, {
      status: 429,
      body: errorBody("Rate limit exceeded (sandbox fault)"),
      headers: { "retry-after": "1" },
    });
  }

  let result: HandlerResult;
  try {
    if (match.route.access === "key") checkApiKey(req, deps.apiKey());
    const body = ["POST", "PUT", "PATCH", "DELETE"].includes(method) ? await readJson(req) : undefined;
    if (fault?.mode === "delay") {
      // After the body is in: the work is done even if the client has gone meanwhile.
      deps.logger.info({ method, path, delayMs: fault.delayMs }, "sandbox fault: delaying request");
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 0));
    }
    result = await match.route.handler({
      method,
      path,
      query: url.searchParams,
      headers: req.headers,
      params: match.params,
      body,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    result = { status: error.status, body: errorBody(error.message), headers: error.headers };
  }
  deps.logger.debug({ method, path, status: result.status ?? 200 }, "sandbox request");
  if (fault?.mode === "500-after") {
    send(res, { status: 500, body: errorBody("Internal server error (sandbox fault, after processing)") });
  } else {
    send(res, result);
  }
  result.after?.();
}

function checkApiKey(req: IncomingMessage, expected: string): void {
  // Node lower-cases header names, so X-API-KEY, x-api-key and X-Api-Key all arrive here.
  const header = req.headers["x-api-key"];
  const given = Array.isArray(header) ? header[0] : header;
  if (!given) throw new ApiError(401, "API key is required: send it in the X-API-KEY header");
  if (given !== expected) throw new ApiError(401, "Invalid API key provided.");
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, "Request body too large (limit 1 MiB)");
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : "unparseable";
    throw new ApiError(400, `Malformed JSON body: ${detail}`);
  }
}

function send(res: ServerResponse, result: HandlerResult): void {
  const status = result.status ?? 200;
  const text = result.raw ? result.raw.text : JSON.stringify(result.body ?? null);
  res.writeHead(status, {
    "content-type": result.raw ? result.raw.contentType : "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...result.headers,
  });
  res.end(text);
}
