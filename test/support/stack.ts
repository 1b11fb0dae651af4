import { Redis } from "ioredis";
import { type App, createApp } from "#src/app.js";
import type { BotDeps } from "#src/bot/context.js";
import type { Feature } from "#src/bot/features.js";
import type { PacingOptions } from "#src/bot/telegram-limits.js";
import { loadConfig } from "#src/config.js";
import { createLogger, type Logger } from "#src/log/logger.js";
import { createMemoryRedis } from "#src/standins/local/memory-redis.js";
import {
  startTelegramEmulator,
  type TelegramEmulator,
  type TelegramEmulatorOptions,
} from "#src/standins/local/telegram-emulator/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { connectRedis } from "#src/store/connection.js";
import { testRedisUrl } from "./redis.ts";

/**
 * The whole product on this machine, wired exactly as main.ts wires it (createApp): a real Redis (this worker's
 * database, flushed), the payout sandbox over HTTP, the Telegram emulator over HTTP, the bot on long polling, the
 * HTTP server receiving the sandbox's signed webhooks, and the events pipeline.
 */
export interface StackOptions {
  adminChatId?: number;
  /** The admin group is created in the emulator before the bot starts (so its command menu can be published). */
  adminGroupTitle?: string;
  adminUserIds?: number[];
  /** Extra environment for loadConfig (e.g. LOW_BALANCE_ALERTS). */
  env?: Record<string, string>;
  /** Telegram throttling (off by default so tests are quick; a dedicated test turns it on). */
  throttle?: boolean;
  /** The outbound pacing's budgets and clock, with `throttle` (see burstPacer). */
  pacing?: PacingOptions;
  emulator?: TelegramEmulatorOptions;
  sandbox?: Parameters<typeof startSandbox>[0];
  reconcileEveryMs?: number;
  /** The rate-alert check's interval (default: the app's, 60 s). */
  rateAlertEveryMs?: number;
  features?: (deps: BotDeps) => Feature[];
  /** Keep the data of a previous stack in this worker's database (restart tests). */
  keepData?: boolean;
  hooks?: Parameters<typeof createApp>[0]["hooks"];
  /** Where Lightning-address lookups resolve and connect (a local LNURL server). */
  outbound?: Parameters<typeof createApp>[0]["outbound"];
  /**
   * Run on local mode's no-Redis fallback: the in-memory Redis stand-in and the in-process queues
   * (TEST_MEMORY_STORE=1 makes it the default, to run any e2e file on the fallback).
   */
  memory?: boolean;
  /** The app's logger (default: silent, or TEST_LOG_LEVEL); tests that assert on what was logged pass their own. */
  logger?: Logger;
  /** Another Redis than this worker's test database (e.g. a `redis+sentinel://` set), connected as main.ts does. */
  redisUrl?: string;
}

export interface Stack {
  app: App;
  tg: TelegramEmulator;
  sandbox: Sandbox;
  redis: Redis;
  /** POST /simulation/pay-in for a Lightning quote (BTC) or a bank-transfer quote (NGN with its amount). */
  payLightning(quoteId: string): Promise<void>;
  payBankTransfer(quoteId: string, amountKobo: number): Promise<void>;
  advanceClock(ms: number): Promise<void>;
  mineBlocks(count: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const memory = options.memory ?? process.env.TEST_MEMORY_STORE === "1";
  const logger =
    options.logger ?? createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent", pretty: false });
  const redis = memory
    ? await createMemoryRedis()
    : options.redisUrl
      ? connectRedis(options.redisUrl, { logger })
      : new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  if (!options.keepData) await redis.flushdb();
  const sandbox = await startSandbox({ port: 0, ...options.sandbox });
  const tg = await startTelegramEmulator(options.emulator);
  if (options.adminChatId !== undefined)
    tg.group({ id: options.adminChatId, title: options.adminGroupTitle ?? "Ops room" });
  const config = loadConfig({
    NODE_ENV: "test",
    BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    PAYOUT_API_BASE_URL: sandbox.baseUrl,
    PAYOUT_API_KEY: sandbox.apiKey,
    PAYOUT_WEBHOOK_SECRET: sandbox.webhookSecret,
    PAYOUT_ENV: "sandbox",
    HOST: "127.0.0.1",
    PORT: "0",
    METRICS_PORT: "0",
    LOG_LEVEL: "silent",
    // Test drivers tap far faster than people: flood control is off unless a test sets it (test/e2e/flood.test.ts).
    USER_RATE_LIMIT: "off",
    ...(options.adminChatId !== undefined ? { ADMIN_CHAT_ID: String(options.adminChatId) } : {}),
    ...(options.adminUserIds ? { ADMIN_USER_IDS: options.adminUserIds.join(",") } : {}),
    ...options.env,
  });
  const app = await createApp({
    config,
    logger,
    redis,
    queueBackend: memory ? "memory" : "bullmq",
    payout: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret },
    telegram: { token: tg.token },
    telegramPolicy: {
      throttle: options.throttle ?? false,
      maxDelaySeconds: 5,
      ...(options.pacing ? { pacing: options.pacing } : {}),
    },
    publicUrl: "self",
    reconcileEveryMs: options.reconcileEveryMs ?? 300,
    rateAlertEveryMs: options.rateAlertEveryMs,
    now: () => sandbox.now(),
    features: options.features,
    alertFlushMs: 250,
    hooks: options.hooks,
    outbound: options.outbound,
  });
  await app.start();
  if (config.telegram.mode === "polling") await tg.waitForPoll();

  let stopped = false;
  return {
    app,
    tg,
    sandbox,
    redis,
    async payLightning(quoteId) {
      await app.api.simulatePayIn({ quoteId, currency: "BTC" });
    },
    async payBankTransfer(quoteId, amountKobo) {
      await app.api.simulatePayIn({ quoteId, currency: "NGN", amount: amountKobo });
    },
    async advanceClock(ms) {
      sandbox.advanceClock(ms);
    },
    async mineBlocks(count) {
      sandbox.mineBlocks(count);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.stop();
      await tg.close();
      await sandbox.close();
      await redis.quit();
    },
  };
}
