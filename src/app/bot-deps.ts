import { createPayoutApi, type PayoutApi, ServerClock } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { createTelegramTransformers } from "#src/bot/telegram-transformers.js";
import { AccountLanguage } from "#src/i18n/account-language.js";
import { createTranslator, type Translator } from "#src/i18n/index.js";
import { createMetrics, type Metrics, observePayoutApi } from "#src/metrics.js";
import { createStore, type Store } from "#src/store/index.js";
import type { AppOptions } from "./options.ts";

/** What the bot is built from, made once the way production makes it (createApp; the benches reuse it). */
interface BotParts {
  deps: BotDeps;
  api: PayoutApi;
  store: Store;
  translator: Translator;
  accountLanguage: AccountLanguage;
  metrics: Metrics;
  /** The outbound policy for bot.api: auto-retry, throttling unless turned off, error metrics. */
  transformers: ReturnType<typeof createTelegramTransformers>;
}

export async function createBotDeps(
  options: Pick<AppOptions, "config" | "logger" | "redis" | "payout" | "telegramPolicy" | "now" | "outbound">,
  wiring: Pick<BotDeps, "ops" | "processes"> = {},
): Promise<BotParts> {
  const { config, logger, redis } = options;
  const metrics = createMetrics({ defaultMetrics: true });
  const serverClock = options.now ? undefined : new ServerClock();
  const now = options.now ?? (() => serverClock!.now());
  const api = createPayoutApi({
    baseUrl: options.payout.baseUrl,
    apiKey: options.payout.apiKey,
    logger,
    ...(serverClock ? { clock: serverClock } : {}),
    observe: observePayoutApi(metrics),
  });
  const store = createStore(redis, now);
  const translator = await createTranslator({ logger, supportContact: config.support.contact?.label });
  const accountLanguage = new AccountLanguage(
    async () => (await api.getUser()).account?.settings?.language,
    logger,
  );
  const transformers = createTelegramTransformers({
    ...options.telegramPolicy,
    logger,
    onError: (method, code) => metrics.telegramErrors.inc({ method, code: String(code) }),
  });
  const deps: BotDeps = {
    config,
    logger,
    api,
    store,
    translator,
    accountLanguage,
    now,
    hooks: {
      onUpdateHandled: (type, seconds) => {
        metrics.updatesHandled.inc({ type });
        metrics.handlerLatency.observe({ type }, seconds);
      },
    },
    ...(options.outbound ? { outbound: options.outbound } : {}),
    ...wiring,
  };
  return { deps, api, store, translator, accountLanguage, metrics, transformers };
}
