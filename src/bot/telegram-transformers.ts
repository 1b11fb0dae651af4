import { autoRetry } from "@grammyjs/auto-retry";
import type { Api, Transformer } from "grammy";
import type { Logger } from "pino";
import { boundedOutput, burstPacer, type PacingOptions } from "./telegram-limits.ts";

/**
 * The outbound policy for every Telegram call in the process: stay within Telegram's limits (~30 msg/s overall,
 * ~1/s per chat sustained with a short burst allowed, 20/min per group) and retry 429s and 5xx with the server's retry_after. The same instances are
 * installed on bot.api, which the events notifier and broadcasts share, so all of them draw on one budget;
 * conversations get auto-retry alone (see conversationTransformers).
 */
export interface TelegramTransformerOptions {
  /** Off for benchmarks and tests that answer Telegram in-process. */
  throttle?: boolean;
  /** The pacing's budgets (see burstPacer). */
  pacing?: PacingOptions;
  maxRetryAttempts?: number;
  maxDelaySeconds?: number;
  /** Called for every failed Telegram call (metrics). */
  onError?: (method: string, errorCode: number) => void;
  /** Where the size guard reports a text it had to cut (a bug: replies bound what they quote). */
  logger?: Logger;
}

type TransformerRole = "retry" | "throttle" | "metrics" | "bound" | "answers";

/**
 * The callback queries this process has answered (the last few thousand). Telegram takes one answer per query;
 * a handler that answered and then failed, or passed the update on, must not have it answered again by the
 * error reply or the fallback.
 */
export class AnsweredQueries {
  private readonly ids = new Set<string>();
  constructor(private readonly capacity = 5_000) {}

  has(queryId: string): boolean {
    return this.ids.has(queryId);
  }

  add(queryId: string): void {
    this.ids.add(queryId);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }

  /** Records every answerCallbackQuery that goes out (answered or refused, a second try would not help). */
  transformer(): Transformer {
    return async (prev, method, payload, signal) => {
      try {
        return await prev(method, payload, signal);
      } finally {
        if (method === "answerCallbackQuery") {
          const id = (payload as { callback_query_id?: unknown }).callback_query_id;
          if (typeof id === "string") this.add(id);
        }
      }
    };
  }
}
const registries = new WeakMap<Transformer, AnsweredQueries>();

/** The answered-queries registry among a process's transformers. */
export function answeredQueriesOf(transformers: readonly Transformer[]): AnsweredQueries | undefined {
  for (const transformer of transformers) {
    const registry = registries.get(transformer);
    if (registry) return registry;
  }
  return undefined;
}
const roles = new WeakMap<Transformer, TransformerRole>();
const tagged = (transformer: Transformer, role: TransformerRole) => {
  roles.set(transformer, role);
  return transformer;
};

/**
 * grammY applies the LAST installed transformer outermost. Installed in this order: the size guard (innermost: it
 * shapes the payload once, whatever retries), the throttler (so a retried call re-enters its queue), auto-retry,
 * then the metrics tap (outermost: it sees the final outcome).
 */
export function createTelegramTransformers(options: TelegramTransformerOptions = {}): Transformer[] {
  const transformers: Transformer[] = [];
  if (options.logger) transformers.push(tagged(boundedOutput(options.logger), "bound"));
  const answered = new AnsweredQueries();
  const recorder = tagged(answered.transformer(), "answers");
  registries.set(recorder, answered);
  transformers.push(recorder);
  if (options.throttle ?? true) transformers.push(tagged(burstPacer(options.pacing), "throttle"));
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
 * What conversations re-install on their rebuilt contexts: the size guard, the answer registry and auto-retry. Inside a conversation our transformers
 * sit outside the plugin's replay log, so they run again for every replayed call: a throttler would make each
 * replay wait ~1 s per earlier message of the flow, and the metrics tap would count old errors again.
 */
export function conversationTransformers(transformers: readonly Transformer[]): Transformer[] {
  return transformers.filter((transformer) => {
    const role = roles.get(transformer);
    return role === "retry" || role === "bound" || role === "answers";
  });
}

export function installTransformers(api: Api, transformers: readonly Transformer[]): void {
  for (const transformer of transformers) api.config.use(transformer);
}
