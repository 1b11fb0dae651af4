import { timingSafeEqual } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Registry } from "prom-client";
import type { Logger } from "#src/log/logger.js";
import { BodyTooLargeError, readRawBody } from "./body.ts";
import { closeGracefully, listen } from "./listen.ts";
import { bearerMatches, sendMetrics } from "./metrics-server.ts";

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency is usable; rejects (or times out) otherwise. */
  check: () => Promise<unknown>;
}

/** What the payout webhook receiver gets: the exact bytes (for the signature) and the headers. */
export interface RawRequest {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
}
export interface HandlerResponse {
  status: number;
  body: unknown;
  /** The request proved it comes from the sender (a valid signature); not sent, read by taps (ops' last webhook). */
  authentic?: boolean;
}
export type RawRequestHandler = (request: RawRequest) => Promise<HandlerResponse>;

/** grammY's `webhookCallback(bot, "http")` has this shape. */
type NodeHttpHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

interface TelegramRoute {
  handler: NodeHttpHandler;
  /** Value Telegram sends in X-Telegram-Bot-Api-Secret-Token (set with setWebhook's secret_token). */
  secretToken: string;
  /** Default "/webhooks/telegram". */
  path?: string;
}

/** Tried before the 404: answers the request and resolves true, or leaves it alone and resolves false. */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;

interface HttpServerOptions {
  logger: Logger;
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  payoutWebhook?: RawRequestHandler;
  /** Default 256 KiB; larger webhook bodies get 413. */
  webhookBodyLimit?: number;
  readiness?: ReadinessCheck[];
  /** Per check; a slow dependency counts as down. Default 2 s. */
  readinessTimeoutMs?: number;
  /**
   * /metrics on this public port, to `Authorization: Bearer <token>` only (METRICS_TOKEN). Without it the port has no
   * /metrics: Prometheus scrapes the metrics listener (metrics-server.ts).
   */
  metrics?: { registry: Registry; token: string };
  telegram?: TelegramRoute;
  /** More routes the composition passes in (e.g. the merchant Mini App); true when it answered the request. */
  routes?: ExtraRoutes | undefined;
}

export interface HttpServer {
  readonly server: Server;
  start(): Promise<{ port: number; url: string }>;
  /** Stop accepting, let in-flight requests finish for up to `graceMs`, then close what is left. */
  stop(graceMs?: number): Promise<void>;
  /** The bot's webhook route in webhook mode (may be set after start). */
  setTelegramRoute(route: TelegramRoute | undefined): void;
  addReadinessCheck(check: ReadinessCheck): void;
  /** Shutdown has begun: /readyz answers 503 from now on, so the load balancer stops sending new traffic. */
  beginDraining(): void;
}

export const PAYOUT_WEBHOOK_PATH = "/webhooks/payout";
export const DEFAULT_TELEGRAM_PATH = "/webhooks/telegram";
const DEFAULT_BODY_LIMIT = 256 * 1024;

/** The process's public HTTP server: payout webhooks, Telegram updates (webhook mode), health (and metrics to a token). */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { logger } = options;
  const readiness = [...(options.readiness ?? [])];
  let telegram = options.telegram;
  let draining = false;

  async function ready(res: ServerResponse): Promise<void> {
    if (draining) return sendJson(res, 503, { status: "draining" });
    const { healthy, checks } = await readinessOf(readiness, options.readinessTimeoutMs ?? 2_000, logger);
    sendJson(res, healthy ? 200 : 503, { status: healthy ? "ok" : "unavailable", checks });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req);
    const method = req.method ?? "GET";
    if (path === PAYOUT_WEBHOOK_PATH) return payoutWebhook(req, res, options);
    if (telegram && path === (telegram.path ?? DEFAULT_TELEGRAM_PATH))
      return telegramUpdate(req, res, telegram);
    if (path === "/healthz" && method === "GET") return sendJson(res, 200, { status: "ok" });
    if (path === "/readyz" && method === "GET") return ready(res);
    if (path === "/metrics" && method === "GET" && options.metrics) return metrics(req, res, options.metrics);
    if (options.routes && (await options.routes(req, res, path))) return;
    sendJson(res, 404, { status: "error", message: "not found" });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      logger.error({ err: error, path: pathOf(req) }, "http handler failed");
      if (!res.headersSent) sendJson(res, 500, { status: "error" });
      else res.destroy();
    });
  });
  // Slow clients must not hold sockets forever; webhook senders are expected to answer within seconds.
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;

  return {
    server,
    async start() {
      const listening = await listen(server, options.port ?? 0, options.host ?? "127.0.0.1");
      logger.info({ port: listening.port }, "http server listening");
      return listening;
    },
    stop: (graceMs = 5_000) => closeGracefully(server, graceMs),
    setTelegramRoute(next) {
      telegram = next;
    },
    addReadinessCheck(check) {
      readiness.push(check);
    },
    beginDraining() {
      draining = true;
    },
  };
}

/** POST /webhooks/payout: the exact bytes (up to the body limit) to the receiver, its answer back. */
async function payoutWebhook(
  req: IncomingMessage,
  res: ServerResponse,
  options: HttpServerOptions,
): Promise<void> {
  if ((req.method ?? "GET") !== "POST") return methodNotAllowed(res, "POST");
  if (!options.payoutWebhook) return sendJson(res, 404, { status: "error", message: "not found" });
  let rawBody: Buffer;
  try {
    rawBody = await readRawBody(req, options.webhookBodyLimit ?? DEFAULT_BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      res.setHeader("connection", "close");
      return sendJson(res, 413, { status: "error", message: "payload too large" });
    }
    throw error;
  }
  const answer = await options.payoutWebhook({ rawBody, headers: req.headers });
  return sendJson(res, answer.status, answer.body);
}

/** Telegram's webhook: only with the secret token set by setWebhook. */
async function telegramUpdate(
  req: IncomingMessage,
  res: ServerResponse,
  telegram: TelegramRoute,
): Promise<void> {
  if ((req.method ?? "GET") !== "POST") return methodNotAllowed(res, "POST");
  if (!secretMatches(req.headers["x-telegram-bot-api-secret-token"], telegram.secretToken)) {
    return sendJson(res, 401, { status: "error", message: "unauthorized" });
  }
  await telegram.handler(req, res);
}

/** GET /metrics on the public port: to the bearer of the metrics token only. */
function metrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: NonNullable<HttpServerOptions["metrics"]>,
): Promise<void> | void {
  if (!bearerMatches(req.headers.authorization, metrics.token)) {
    res.setHeader("www-authenticate", 'Bearer realm="metrics"');
    return sendJson(res, 401, { status: "error", message: "unauthorized" });
  }
  return sendMetrics(res, metrics.registry);
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const end = url.indexOf("?");
  return end === -1 ? url : url.slice(0, end);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body ?? {});
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
  });
  res.end(payload);
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader("allow", allow);
  sendJson(res, 405, { status: "error", message: "method not allowed" });
}

/** Constant-time comparison so the secret cannot be guessed byte by byte from response times. */
function secretMatches(received: string | string[] | undefined, expected: string): boolean {
  if (typeof received !== "string" || expected.length === 0) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * /readyz: every check at once, each within `timeoutMs` (a slow dependency counts as down). The answer names each
 * check's state only ("ok", "timeout", "error"): a failure's message may carry a URL or an upstream error, so it is
 * logged instead.
 */
async function readinessOf(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
  logger: Logger,
): Promise<{ healthy: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        await withTimeout(check(), timeoutMs);
        return [name, "ok"] as const;
      } catch (error) {
        logger.warn({ err: error, check: name }, "readiness check failed");
        return [name, error instanceof TimeoutError ? "timeout" : "error"] as const;
      }
    }),
  );
  return { healthy: results.every(([, state]) => state === "ok"), checks: Object.fromEntries(results) };
}

class TimeoutError extends Error {}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(`timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
