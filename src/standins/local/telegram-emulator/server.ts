import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { Dispatcher } from "./dispatcher.ts";
import { notFound, TelegramApiError, unauthorized } from "./errors.ts";
import { parseParams, readBody } from "./params.ts";
import type { World } from "./world.ts";

interface ServerDeps {
  token: string;
  dispatcher: Dispatcher;
  world: World;
  logger: Logger;
  maxUploadBytes: number;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** `/bot<token>/<method>` for the API, `/file/bot<token>/<path>` for downloads, like api.telegram.org. */
export function createApiServer(deps: ServerDeps): Server {
  const server = createServer((req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      deps.logger.error({ err: error }, "telegram emulator: request failed");
      send(res, 500, { ok: false, error_code: 500, description: "Internal Server Error" });
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

async function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://emulator");
  const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
  if (fileMatch) return serveFile(deps, fileMatch[1]!, decodeURIComponent(fileMatch[2]!), res);
  const match = /^\/bot([^/]+)\/([^/]*)$/.exec(url.pathname);
  if (!match) return send(res, 404, notFound().toJSON());
  if (decodeURIComponent(match[1]!) !== deps.token) return send(res, 401, unauthorized().toJSON());
  const method = match[2]!;
  if (method === "") return send(res, 404, notFound().toJSON());

  // The client leaving (aborted long poll, killed bot) must release parked requests at once.
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  let params: Awaited<ReturnType<typeof parseParams>>;
  try {
    const body = await readBody(req, deps.maxUploadBytes);
    params = await parseParams(req.headers["content-type"], body, url.searchParams);
  } catch (error) {
    if (error instanceof TelegramApiError) {
      // Stop reading an oversized body; the client still gets Telegram's 413.
      res.setHeader("connection", "close");
      return send(res, error.errorCode, error.toJSON());
    }
    throw error;
  }
  const outcome = await deps.dispatcher.call(method, params, controller.signal);
  if (outcome === "network-error") {
    req.socket.destroy();
    return;
  }
  send(res, outcome.status, outcome.body);
}

function serveFile(deps: ServerDeps, token: string, path: string, res: ServerResponse): void {
  if (token !== deps.token) {
    send(res, 401, unauthorized().toJSON());
    return;
  }
  for (const file of deps.world.files.values()) {
    if (file.path !== path) continue;
    res.writeHead(200, {
      "content-type": file.mimeType ?? "application/octet-stream",
      "content-length": file.bytes.length,
    });
    res.end(file.bytes);
    return;
  }
  send(res, 404, notFound().toJSON());
}
