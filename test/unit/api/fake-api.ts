import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A tiny stand-in for the payout API over real HTTP (the outside world may be faked). Routes are set per test;
 * every request is recorded with its method, path, query, headers and parsed body.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage["headers"];
  rawBody: string;
  body: unknown;
}

export type Responder = (request: RecordedRequest, response: ServerResponse, nth: number) => void;

export interface FakeApi {
  /** http://127.0.0.1:<port>/api/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Answer `METHOD /path` (relative to /api/v1). The responder's third argument counts calls from 1. */
  route(method: string, path: string, responder: Responder): void;
  /** Requests received for `METHOD /path`. */
  count(method: string, path: string): number;
  reset(): void;
  close(): Promise<void>;
}

export const PREFIX = "/api/v1";

export async function startFakeApi(): Promise<FakeApi> {
  const routes = new Map<string, Responder>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://fake");
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = rawBody;
      }
      const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname;
      const recorded: RecordedRequest = {
        method: incoming.method ?? "GET",
        path,
        query: Object.fromEntries(url.searchParams),
        headers: incoming.headers,
        rawBody,
        body,
      };
      requests.push(recorded);
      const key = `${recorded.method} ${path}`;
      const responder = routes.get(key);
      const nth = requests.filter((request) => `${request.method} ${request.path}` === key).length;
      if (!url.pathname.startsWith(PREFIX) || !responder) {
        json(response, 404, { status: "error", message: `no route ${key}` });
        return;
      }
      responder(recorded, response, nth);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${PREFIX}`,
    requests,
    route(method, path, responder) {
      routes.set(`${method} ${path}`, responder);
    },
    count(method, path) {
      return requests.filter((request) => request.method === method && request.path === path).length;
    },
    reset() {
      routes.clear();
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** `{"status":"ok","data":…}` */
export function ok(data: unknown, message?: string): Responder {
  return (_request, response) => json(response, 200, { status: "ok", ...(message ? { message } : {}), data });
}

export function fail(status: number, message: string, headers: Record<string, string> = {}): Responder {
  return (_request, response) => json(response, status, { status: "error", message }, headers);
}

export function raw(status: number, contentType: string, text: string): Responder {
  return (_request, response) => {
    response.writeHead(status, { "content-type": contentType });
    response.end(text);
  };
}

/** Never answer: the client's headers timeout fires. */
export const hang: Responder = () => {};

/** Drop the connection without a response: the client sees a reset/closed socket. */
export const reset: Responder = (request, response) => {
  void request;
  response.socket?.destroy();
};

/** Send the headers and part of the body, then stall: the client's body timeout fires. */
export const stallBody: Responder = (_request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.write('{"status":"ok","data":');
};

/** Fail with `first` for the first `times` calls, then use `then`. */
export function sequence(times: number, first: Responder, then: Responder): Responder {
  return (request, response, nth) =>
    nth <= times ? first(request, response, nth) : then(request, response, nth);
}
