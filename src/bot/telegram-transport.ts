import { type Api, HttpError, InputFile, type Transformer } from "grammy";

const JSON_HEADERS = { "content-type": "application/json" };
/** Deeper than any Bot API payload (an inline keyboard is four levels down); deeper ones take grammY's path. */
const MAX_DEPTH = 8;

/**
 * Whether `value` goes out as JSON exactly as `JSON.stringify` writes it: no file to upload (those go as multipart)
 * and no null (grammY leaves nulls out of the JSON it sends), within MAX_DEPTH.
 */
function plainJson(value: unknown, depth: number): boolean {
  if (value === null || value instanceof InputFile || depth > MAX_DEPTH) return false;
  if (typeof value !== "object") return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainJson(item, depth + 1)) return false;
    return true;
  }
  for (const key in value) if (!plainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/**
 * The innermost transformer of an Api the bot builds (bot.api, the flows' Api): a JSON call is posted through the
 * Api's own `client.fetch` (src/http/telegram-fetch.ts, wrapped by the call recorder) without grammY's envelope
 * around each call (a polyfilled AbortController, a timer and a race per call, and JSON written through a replacer
 * that drops nulls): about 15 µs of CPU per call (bench/tools/io-costs.ts). What reaches Telegram and what the
 * transformers above see are the same: the same URL, body and answer, and a failure to reach Telegram is the same
 * HttpError. File uploads, payloads with a null, calls with an abort signal and Apis without a custom `fetch` or
 * with a custom URL scheme take grammY's own path. Never installed on a conversation's context: there the
 * plugin's replay log sits innermost, and a call above it would go out again on every replay.
 */
export function jsonTransport(api: Api): Transformer {
  const options = api.options;
  const fetch = options?.fetch;
  if (!fetch || options.buildUrl || (options.environment ?? "prod") !== "prod") {
    return (prev, method, payload, signal) => prev(method, payload, signal);
  }
  const base = `${options.apiRoot ?? "https://api.telegram.org"}/bot${api.token}/`;
  return async (prev, method, payload, signal) => {
    if (signal !== undefined || !plainJson(payload, 0)) return prev(method, payload, signal);
    // Outside the try, as in grammY: a payload JSON cannot write is the caller's error, not the network's.
    const body = JSON.stringify(payload ?? {});
    try {
      const response = await fetch(base + method, { method: "POST", headers: JSON_HEADERS, body });
      return await response.json();
    } catch (error) {
      throw new HttpError(`Network request for '${method}' failed!`, error);
    }
  };
}
