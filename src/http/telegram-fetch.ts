import { Agent, type Dispatcher, errors } from "undici";

/** What grammY's client reads of a response: the status and the body (`json()`; the call recorder uses `text()`). */
export interface TelegramResponse {
  ok: boolean;
  status: number;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** The abort signal grammY passes: its own AbortController's (the `abort-controller` package on Node). */
interface CallSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

interface TelegramRequestInit {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON string, or the multipart stream grammY builds for file uploads. */
  body?: string | NodeJS.ReadableStream;
  signal?: CallSignal;
}

/**
 * grammY's `client.fetch` on undici's dispatcher instead of grammY's default (node-fetch over `http.Agent`). A Bot
 * API answer is one small JSON body, so it is collected straight from the connection (undici's handler API) rather
 * than through a response stream: a CPU profile of the webhook bench put ~18% of the busy time in node-fetch and
 * node:http, and `bench/tools/io-costs.ts` measures what is left per call. Only what grammY's client uses is kept:
 * method, headers, body (string or stream), the abort signal, and a response it reads once. grammY's own timeout
 * (its signal) still applies, also to a call still waiting for a connection; a refused connection rejects, which
 * grammY turns into an HttpError. Connections are kept alive per origin.
 */
export function createTelegramFetch(): (
  url: string,
  init?: TelegramRequestInit,
) => Promise<TelegramResponse> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      // grammY's URLs are `${apiRoot}/bot<token>/<method>`: the origin ends at the first "/" after "scheme://".
      const pathStart = url.indexOf("/", url.indexOf("//") + 2);
      const origin = pathStart < 0 ? url : url.slice(0, pathStart);
      const path = pathStart < 0 ? "/" : url.slice(pathStart);
      const { signal } = init;
      const chunks: Buffer[] = [];
      let status = 0;
      let controller: Dispatcher.DispatchController | undefined;
      let abortedEarly = false;
      const onAbort = () => {
        if (controller) controller.abort(new errors.RequestAbortedError());
        else abortedEarly = true;
      };
      const settle = () => signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) {
        reject(new errors.RequestAbortedError());
        return;
      }
      signal?.addEventListener("abort", onAbort);
      dispatcher.dispatch(
        {
          origin,
          path,
          method: (init.method ?? "GET") as Dispatcher.HttpMethod,
          ...(init.headers ? { headers: init.headers } : {}),
          ...(init.body !== undefined ? { body: init.body as string } : {}),
        },
        {
          onRequestStart(started) {
            // Aborted while it waited for a connection: it never leaves.
            if (abortedEarly) started.abort(new errors.RequestAbortedError());
            else controller = started;
          },
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            settle();
            const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
            resolve({
              ok: status >= 200 && status < 300,
              status,
              text: async () => text,
              json: async () => JSON.parse(text) as unknown,
            });
          },
          onResponseError(_controller, error) {
            settle();
            reject(error);
          },
        },
      );
    });
}
