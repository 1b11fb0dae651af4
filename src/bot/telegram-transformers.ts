import { autoRetry } from "@grammyjs/auto-retry";
import { apiThrottler } from "@grammyjs/transformer-throttler";
import type { Api, Transformer } from "grammy";

/**
 * The outbound policy for every Telegram call in the process: stay within Telegram's limits (~30 msg/s overall,
 * ~1/s per chat, 20/min per group) and retry 429s and 5xx with the server's retry_after. The same instances are
 * installed on bot.api, which the events notifier and broadcasts share, so all of them draw on one budget;
 * conversations get auto-retry alone (see conversationTransformers).
 */
export interface TelegramTransformerOptions {
  /** Off for benchmarks and tests that answer Telegram in-process. */
  throttle?: boolean;
  maxRetryAttempts?: number;
  maxDelaySeconds?: number;
  /** Called for every failed Telegram call (metrics). */
  onError?: (method: string, errorCode: number) => void;
}

type TransformerRole = "retry" | "throttle" | "metrics";
const roles = new WeakMap<Transformer, TransformerRole>();
const tagged = (transformer: Transformer, role: TransformerRole) => {
  roles.set(transformer, role);
  return transformer;
};

/**
 * grammY applies the LAST installed transformer outermost. Installed in this order: the throttler (innermost, so a
 * retried call re-enters its queue), auto-retry, then the metrics tap (outermost: it sees the final outcome).
 */
export function createTelegramTransformers(options: TelegramTransformerOptions = {}): Transformer[] {
  const transformers: Transformer[] = [];
  if (options.throttle ?? true) transformers.push(tagged(apiThrottler(), "throttle"));
  transformers.push(
    tagged(
      autoRetry({
        maxRetryAttempts: options.maxRetryAttempts ?? 5,
        maxDelaySeconds: options.maxDelaySeconds ?? 60,
        rethrowHttpErrors: false,
        rethrowInternalServerErrors: false,
      }),
      "retry",
    ),
  );
  const onError = options.onError;
  if (onError) {
    transformers.push(
      tagged(async (prev, method, payload, signal) => {
        const result = await prev(method, payload, signal);
        if (!result.ok) onError(method, result.error_code);
        return result;
      }, "metrics"),
    );
  }
  return transformers;
}

/**
 * What conversations re-install on their rebuilt contexts: auto-retry only. Inside a conversation our transformers
 * sit outside the plugin's replay log, so they run again for every replayed call: a throttler would make each
 * replay wait ~1 s per earlier message of the flow, and the metrics tap would count old errors again.
 */
export function conversationTransformers(transformers: readonly Transformer[]): Transformer[] {
  return transformers.filter((transformer) => roles.get(transformer) === "retry");
}

export function installTransformers(api: Api, transformers: readonly Transformer[]): void {
  for (const transformer of transformers) api.config.use(transformer);
}
