import { Agent, request } from "undici";

/** What grammY's client reads of a response: the status and the body (`json()`; the call recorder uses `text()`). */
export interface TelegramResponse {
  ok: boolean;
  status: number;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

interface TelegramRequestInit {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON string, or the multipart stream grammY builds for file uploads. */
  body?: string | NodeJS.ReadableStream;
  signal?: AbortSignal;
}

/**
 * grammY's `client.fetch` on undici's `request` instead of grammY's default (node-fetch over `http.Agent`): every
 * Bot API call costs about half the CPU (a CPU profile of the webhook bench put ~18% of the busy time in node-fetch
 * and node:http). Only what grammY's client uses is kept: method, headers, body (string or stream), the abort
 * signal, and a response it reads once. grammY's own timeout (its signal) still applies; a refused connection
 * rejects, which grammY turns into an HttpError as before. Connections are kept alive per origin.
 */
export function createTelegramFetch(): (
  url: string,
  init?: TelegramRequestInit,
) => Promise<TelegramResponse> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  return async (url, init = {}) => {
    const response = await request(url, {
      method: (init.method ?? "GET") as "GET" | "POST",
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.body !== undefined ? { body: init.body as string } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      dispatcher,
    });
    const text = await response.body.text();
    return {
      ok: response.statusCode >= 200 && response.statusCode < 300,
      status: response.statusCode,
      text: async () => text,
      json: async () => JSON.parse(text) as unknown,
    };
  };
}
