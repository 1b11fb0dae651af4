import { autoRetry } from "@grammyjs/auto-retry";
import { apiThrottler } from "@grammyjs/transformer-throttler";
import type { Api, Transformer } from "grammy";

/**
 * The outbound policy for every Telegram call in the process: stay within Telegram's limits (~30 msg/s overall,
 * ~1/s per chat, 20/min per group) and retry 429s and 5xx with the server's retry_after. The same instances are
 * installed on bot.api, inside conversations (whose ctx.api skips bot.api's transformers) and on the events
 * notifier's Api, so all of them share one budget.
 */
export interface TelegramTransformerOptions {
  /** Off for benchmarks and tests that answer Telegram in-process. */
  throttle?: boolean;
  maxRetryAttempts?: number;
  maxDelaySeconds?: number;
  /** Called for every failed Telegram call (metrics). */
  onError?: (method: string, errorCode: number) => void;
}

export function createTelegramTransformers(options: TelegramTransformerOptions = {}): Transformer[] {
  const transformers: Transformer[] = [
    autoRetry({
      maxRetryAttempts: options.maxRetryAttempts ?? 5,
      maxDelaySeconds: options.maxDelaySeconds ?? 60,
      rethrowHttpErrors: false,
      rethrowInternalServerErrors: false,
    }),
  ];
  // The throttler runs before auto-retry so a retried call re-enters the queue instead of jumping it.
  if (options.throttle ?? true) transformers.unshift(apiThrottler());
  const onError = options.onError;
  if (onError) {
    // Outermost: sees the final outcome after retries.
    transformers.unshift(async (prev, method, payload, signal) => {
      const result = await prev(method, payload, signal);
      if (!result.ok) onError(method, result.error_code);
      return result;
    });
  }
  return transformers;
}

export function installTransformers(api: Api, transformers: readonly Transformer[]): void {
  for (const transformer of transformers) api.config.use(transformer);
}
