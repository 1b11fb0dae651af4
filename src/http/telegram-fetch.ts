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

/**
 * A response whose body is already here, as grammY's client reads it (`json()`; the call recorder reads `text()`).
 * Methods on the prototype rather than closures per call: a Bot API call is made for every screen and notification.
 */
export class BufferedResponse implements TelegramResponse {
  readonly ok: boolean;

  constructor(
    readonly status: number,
    private readonly body: string,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  async text(): Promise<string> {
    return this.body;
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.body) as unknown;
  }
}

/** undici's handler for one call: the answer gathered into one string, or the failure, settles the call. */
class BufferingHandler implements Dispatcher.DispatchHandler {
  private readonly chunks: Buffer[] = [];
  private status = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private abortedWith: Error | undefined;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: TelegramResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    if (signal) {
      this.onAbort = () => {
        this.abortedWith = (signal.reason as Error | undefined) ?? new errors.RequestAbortedError();
        this.controller?.abort(this.abortedWith);
      };
      signal.addEventListener("abort", this.onAbort);
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Aborted while waiting for a connection: nothing has been written yet, and nothing will be.
    if (this.abortedWith) controller.abort(this.abortedWith);
    else this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    // An informational answer (1xx) comes before the real one.
    if (statusCode >= 200) this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.done();
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.resolve(new BufferedResponse(this.status, body.toString("utf8")));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.done();
    this.reject(error);
  }

  private done(): void {
    if (this.onAbort) this.signal?.removeEventListener("abort", this.onAbort);
  }
}

/**
 * grammY's `client.fetch` on undici's `dispatch` instead of grammY's default (node-fetch over `http.Agent`). A
 * Bot API call costs about four fifths of the CPU it cost on undici's `request` (49 against 61 µs,
 * bench/tools/io-costs.ts) and under half of node-fetch's: the answer, a Message of about a kilobyte, is gathered
 * into one string without a readable stream in between. Only what grammY's client uses is kept: method, headers,
 * body (string or stream), the abort signal, and a response it reads once. grammY's own timeout (its signal) still
 * applies: an abort before the request reaches a connection sends nothing, one later closes the connection. A
 * refused connection rejects, which grammY turns into an HttpError. Connections are kept alive per origin.
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
      // grammY's URLs are `${apiRoot}/bot<token>/<method>`: the origin ends at the first "/" after "scheme://".
      const pathAt = url.indexOf("/", url.indexOf("//") + 2);
      dispatcher.dispatch(
        {
          origin: pathAt < 0 ? url : url.slice(0, pathAt),
          path: pathAt < 0 ? "/" : url.slice(pathAt),
          method: (init.method ?? "GET") as Dispatcher.HttpMethod,
          headers: init.headers ?? null,
          body: (init.body as string | undefined) ?? null,
        },
        new BufferingHandler(resolve, reject, signal),
      );
    });
}
