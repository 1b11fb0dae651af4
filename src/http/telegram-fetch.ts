import { Agent, type Dispatcher, errors } from "undici";

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

/** The response grammY's client reads once, over the whole body's text. */
function responseOf(status: number, text: string): TelegramResponse {
  return {
    ok: status >= 200 && status < 300,
    status,
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
  };
}

/**
 * grammY's `client.fetch` on undici's `dispatch` instead of grammY's default (node-fetch over `http.Agent`). A
 * Bot API call costs about 60% of the CPU of undici's `request` and under half of node-fetch's
 * (bench/tools/io-costs.ts): the answer, a Message of about a kilobyte, is gathered into one string without a
 * readable stream in between. Only what grammY's client uses is kept: method, headers, body (string or stream),
 * the abort signal, and a response it reads once. grammY's own timeout (its signal) still applies: an abort
 * before the request reaches a connection sends nothing, one later closes the connection. A refused connection
 * rejects, which grammY turns into an HttpError. Connections are kept alive per origin.
 */
export function createTelegramFetch(): (
  url: string,
  init?: TelegramRequestInit,
) => Promise<TelegramResponse> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  return (url, init = {}) =>
    new Promise<TelegramResponse>((resolve, reject) => {
      const { signal } = init;
      if (signal?.aborted) {
        reject(signal.reason ?? new errors.RequestAbortedError());
        return;
      }
      let controller: Dispatcher.DispatchController | undefined;
      let abortedWith: unknown;
      const onAbort = () => {
        abortedWith = signal?.reason ?? new errors.RequestAbortedError();
        controller?.abort(abortedWith as Error);
      };
      signal?.addEventListener("abort", onAbort);
      const done = () => signal?.removeEventListener("abort", onAbort);
      const pathAt = url.indexOf("/", url.indexOf("//") + 2);
      const chunks: Buffer[] = [];
      let status = 0;
      dispatcher.dispatch(
        {
          origin: url.slice(0, pathAt),
          path: url.slice(pathAt),
          method: (init.method ?? "GET") as Dispatcher.HttpMethod,
          headers: init.headers ?? null,
          body: (init.body as string | undefined) ?? null,
        },
        {
          onRequestStart(started) {
            // Aborted while waiting for a connection: nothing has been written yet, and nothing will be.
            if (abortedWith !== undefined) started.abort(abortedWith as Error);
            else controller = started;
          },
          onResponseStart(_controller, statusCode) {
            // An informational answer (1xx) comes before the real one.
            if (statusCode >= 200) status = statusCode;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            done();
            const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            resolve(responseOf(status, body.toString("utf8")));
          },
          onResponseError(_controller, error) {
            done();
            reject(error);
          },
        },
      );
    });
}
