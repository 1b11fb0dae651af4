import type { Transformer } from "grammy";
import type { Redis } from "ioredis";
import type pino from "pino";
import { createPayoutApi, type PayoutApi } from "../../src/api/index.ts";
import type { BotDeps } from "../../src/bot/context.ts";
import { createTelegramTransformers } from "../../src/bot/telegram-transformers.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { AccountLanguage } from "../../src/i18n/account-language.ts";
import { createTranslator } from "../../src/i18n/index.ts";
import { createLogger, type Logger } from "../../src/log/logger.ts";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import { createStore } from "../../src/store/index.ts";
import { BENCH_TOKEN, NOWHERE } from "./local-telegram.ts";
import type { SandboxAddress } from "./sandbox.ts";

/**
 * BotDeps built the way createApp (src/app.ts) builds them — production config, metrics hooks, the payout API
 * client, the outbound policy transformers — minus the HTTP server, the events pipeline and polling, which a
 * benchmark feeding `bot.handleUpdate` does not use. Logs are produced at `info` like production and counted
 * (errors must stay at zero) instead of printed.
 */
export interface LogCounter {
  lines: number;
  errors: number;
  /** The first few error lines, for the report. */
  samples: string[];
}

export function countingLogger(level: string): { logger: Logger; counter: LogCounter } {
  const counter: LogCounter = { lines: 0, errors: 0, samples: [] };
  const destination = {
    write(line: string) {
      counter.lines += 1;
      if (/"level":(50|60)/.test(line)) {
        counter.errors += 1;
        if (counter.samples.length < 3) counter.samples.push(line.slice(0, 400));
      }
    },
  } as unknown as pino.DestinationStream;
  return { logger: createLogger({ level, pretty: false, destination }), counter };
}

export interface BenchDeps {
  deps: BotDeps;
  config: Config;
  api: PayoutApi;
  metrics: Metrics;
  counter: LogCounter;
  /** The production outbound policy (auto-retry, error metrics); throttling off unless asked for. */
  transformers: Transformer[];
}

export async function buildBotDeps(options: {
  redis: Redis;
  sandbox: SandboxAddress;
  logLevel: string;
  throttle?: boolean;
}): Promise<BenchDeps> {
  const { logger, counter } = countingLogger(options.logLevel);
  const config = loadConfig({
    NODE_ENV: "production",
    BOT_TOKEN: BENCH_TOKEN,
    TELEGRAM_API_ROOT: NOWHERE,
    PAYOUT_API_BASE_URL: options.sandbox.baseUrl,
    PAYOUT_API_KEY: options.sandbox.apiKey,
    PAYOUT_WEBHOOK_SECRET: options.sandbox.webhookSecret,
    PAYOUT_ENV: "sandbox",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: options.logLevel,
    LOG_FORMAT: "json",
  });
  const metrics = createMetrics({ defaultMetrics: config.nodeEnv === "production" });
  const api = createPayoutApi({ baseUrl: options.sandbox.baseUrl, apiKey: options.sandbox.apiKey, logger });
  const store = createStore(options.redis);
  const translator = await createTranslator({ logger });
  const accountLanguage = new AccountLanguage(
    async () => (await api.getUser()).account?.settings?.language,
    logger,
  );
  await accountLanguage.refresh();
  const transformers = createTelegramTransformers({
    throttle: options.throttle ?? false,
    onError: (method, code) => metrics.telegramErrors.inc({ method, code: String(code) }),
  });
  const deps: BotDeps = {
    config,
    logger,
    redis: options.redis,
    api,
    store,
    translator,
    accountLanguage,
    hooks: {
      onUpdateHandled: (type, seconds) => {
        metrics.updatesHandled.inc({ type });
        metrics.handlerLatency.observe({ type }, seconds);
      },
    },
  };
  return { deps, config, api, metrics, counter, transformers };
}
