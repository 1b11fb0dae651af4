import type { Transformer } from "grammy";
import type { Redis } from "ioredis";
import type pino from "pino";
import type { PayoutApi } from "#src/api/index.js";
import { createBotDeps } from "#src/app/bot-deps.js";
import type { BotDeps } from "#src/bot/context.js";
import { type Config, loadConfig } from "#src/config.js";
import { createLogger, type Logger } from "#src/log/logger.js";
import type { Metrics } from "#src/metrics.js";
import { BENCH_TOKEN, NOWHERE } from "./local-telegram.ts";
import type { SandboxAddress } from "./sandbox.ts";

/**
 * BotDeps built by createApp's own createBotDeps (src/app/bot-deps.ts) — production config, metrics hooks, the payout API
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
    // Flood control runs (its Redis call per update is part of the cost) but never trips: simulated users have no
    // think time.
    USER_RATE_LIMIT: "1000000/10",
  });
  const { deps, api, metrics, transformers, accountLanguage } = await createBotDeps({
    config,
    logger,
    redis: options.redis,
    payout: { baseUrl: options.sandbox.baseUrl, apiKey: options.sandbox.apiKey },
    telegramPolicy: { throttle: options.throttle ?? false },
  });
  await accountLanguage.refresh();
  return { deps, config, api, metrics, counter, transformers };
}
