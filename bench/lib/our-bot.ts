import type { Bot, Context, Transformer } from "grammy";
import type { Update } from "grammy/types";
import type { Redis } from "ioredis";
import { createBot, firstReadsOf } from "#src/bot/create-bot.js";
import type { Feature } from "#src/bot/features.js";
import { ProcessRegistry } from "#src/store/index.js";
import { createCallRecorder, createUpdateInbox } from "#src/updates/index.js";
import type { BenchDeps } from "./bot-deps.ts";
import { BENCH_BOT, BENCH_TOKEN, type LocalTelegram } from "./local-telegram.ts";

/**
 * Ours as production runs it: the real createBot behind the update inbox (record, per-chat lease, handle,
 * acknowledge; Telegram calls recorded per update), answered by the local Telegram. `handle` resolves when the
 * update is handled. With `inbox: false` updates go to bot.handleUpdate directly.
 */
export interface OurBot {
  bot: Bot<Context>;
  handle(update: Update): Promise<void>;
  stop(graceMs?: number): Promise<void>;
}

export async function startOurBot(options: {
  redis: Redis;
  tg: LocalTelegram;
  built: BenchDeps;
  features: Feature[];
  concurrency: number;
  inbox: boolean;
  /** The outbound policy (default: the bench deps' transformers). */
  transformers?: Transformer[];
}): Promise<OurBot> {
  const { built, tg } = options;
  const recorder = createCallRecorder(
    built.deps.store.updates,
    built.deps.logger,
    tg.fetch as unknown as Parameters<typeof createCallRecorder>[2],
  );
  const policy = options.transformers ?? built.transformers;
  const bot = createBot(built.deps, {
    token: BENCH_TOKEN,
    botInfo: BENCH_BOT,
    transformers: options.inbox
      ? [recorder.transformers.innermost, ...policy, recorder.transformers.outermost]
      : policy,
    features: options.features,
  }) as unknown as Bot<Context>;
  tg.attach(bot);
  if (options.inbox && bot.api.options) bot.api.options.fetch = recorder.fetch;
  if (!options.inbox) {
    return {
      bot,
      handle: async (update) => void (await bot.handleUpdate(update)),
      stop: async () => undefined,
    };
  }
  const handled = new Map<number, () => void>();
  const processes = new ProcessRegistry(options.redis);
  const inbox = createUpdateInbox({
    repo: built.deps.store.updates,
    processes,
    recorder,
    logger: built.deps.logger,
    concurrency: options.concurrency,
    firstReads: firstReadsOf(bot.api, built.deps),
    handle: async (update) => {
      try {
        await bot.handleUpdate(update);
      } finally {
        handled.get(update.update_id)?.();
        handled.delete(update.update_id);
      }
    },
  });
  await processes.start();
  await inbox.start();
  return {
    bot,
    handle: (update) =>
      new Promise<void>((resolve) => {
        handled.set(update.update_id, resolve);
        void inbox.record([update]);
      }),
    async stop(graceMs?: number) {
      await inbox.stop(graceMs);
      await processes.stop();
    },
  };
}
