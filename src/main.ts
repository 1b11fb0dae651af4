import { mkdirSync } from "node:fs";
import type { Redis } from "ioredis";
import pino from "pino";
import type { AppOptions } from "./app/options.ts";
import { type App, createApp } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { EnvFileError, loadEnvFile } from "./env-file.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import { DependencyError } from "./ops/dependencies.ts";
import { keepMemoryReducerWorking } from "./ops/memory-reducer.ts";
import { redisServerAvailable, startPrivateRedis } from "./standins/local/redis-server.ts";
import type { TelegramEmulator } from "./standins/local/telegram-emulator/index.ts";
import type { Sandbox } from "./standins/sandbox/index.ts";
import { connectRedis, redisAddress } from "./store/connection.ts";

/** From SIGTERM to exit at most; /readyz answers 503 for the first DRAIN_MS of it. */
const SHUTDOWN_LIMIT_MS = 8_000;
const DRAIN_MS = 1_000;

/** Process wiring only: config → logger → redis → payout API (or embedded sandbox) → bot → HTTP → shutdown. */
async function main(): Promise<void> {
  const config = readConfig();
  const logger = config.localMode
    ? // The terminal is the chat in local mode: logs go to a file instead.
      localLogger(config)
    : createLogger({ level: config.log.level, pretty: config.log.pretty, name: "payout-bot" });
  const cleanups: Array<() => Promise<unknown>> = [];

  const storage = await resolveStorage(config, logger, cleanups);
  const redis = await connectStorage(storage, config, logger);
  cleanups.unshift(() => redis.quit());
  const { sandbox, payout } = await payoutTarget(config, logger, cleanups);

  let emulator: TelegramEmulator | undefined;
  let runtimeConfig: Config = config;
  const local = config.localMode ? await import("./standins/local/launch.ts") : undefined;
  if (local) {
    emulator = await local.startLocalTelegram();
    cleanups.unshift(() => emulator!.close());
    runtimeConfig = localRuntimeConfig(config, emulator);
  }

  const app: App = await createApp({
    config: runtimeConfig,
    logger,
    redis,
    queueBackend: storage.kind === "memory" ? "memory" : "bullmq",
    payout,
    telegram: { token: runtimeConfig.telegram.token! },
    telegramPolicy: { throttle: runtimeConfig.telegram.throttle },
    publicUrl: sandbox ? "self" : config.http.publicUrl,
    // One clock: the embedded sandbox's (its `:advance` moves what the bot sees too); a real API's is tracked
    // from its Date headers.
    ...(sandbox ? { now: () => sandbox.now() } : {}),
    drainMs: DRAIN_MS,
  });

  const shutdown = shutdownOnSignals(app, cleanups, logger);
  await app.start();
  const stopMemoryReducer = keepMemoryReducerWorking();
  cleanups.unshift(async () => stopMemoryReducer());
  if (local && emulator) {
    local.attachTerminal({ app, emulator, sandbox, onQuit: () => shutdown("quit") });
  }
}

/** The Redis client (or, in local mode without Redis, the in-memory stand-in), answering before the start goes on. */
async function connectStorage(storage: Storage, config: Config, logger: Logger): Promise<Redis> {
  if (storage.kind === "memory")
    // Lazy: production never loads the in-memory stand-in.
    return (await import("./standins/local/memory-redis.ts")).createMemoryRedis();
  // It logs an outage itself: one line per retry interval, from here to shutdown (src/store/redis-outage.ts).
  const redis = connectRedis(storage.url, { logger, retryEveryMs: config.redisRetryMs });
  // Commands wait in ioredis's queue until Redis answers: the start goes on from here once it does. A refusal
  // (a wrong password in REDIS_URL) is not fixed by waiting: it stops the start, as a refused bot token does.
  await redis.ping().catch((error: Error) => {
    throw new DependencyError(
      `redis: ${redisAddress(storage.url)} answered "${error.message}": check REDIS_URL`,
    );
  });
  return redis;
}

/** The payout API from config, or the embedded sandbox when none is configured. */
async function payoutTarget(
  config: Config,
  logger: Logger,
  cleanups: Array<() => Promise<unknown>>,
): Promise<{ sandbox?: Sandbox; payout: AppOptions["payout"] }> {
  if (!config.payout.embeddedSandbox) {
    const { baseUrl = "", apiKey = "", webhookSecret } = config.payout;
    return { payout: { baseUrl, apiKey, webhookSecret } };
  }
  // Imported only when embedded: a production process never loads the sandbox (nor the emulator).
  const { DEFAULT_WEBHOOK_SECRET, startSandbox } = await import("./standins/sandbox/index.ts");
  const sandbox = await startSandbox({
    port: 0,
    webhookSecret: config.payout.webhookSecret ?? DEFAULT_WEBHOOK_SECRET,
    logger,
  });
  cleanups.unshift(() => sandbox.close());
  logger.warn(
    { baseUrl: sandbox.baseUrl },
    "no PAYOUT_API_BASE_URL: using the embedded payout sandbox (no real money)",
  );
  const { baseUrl, apiKey, webhookSecret } = sandbox;
  return { sandbox, payout: { baseUrl, apiKey, webhookSecret } };
}

/** Local mode: Telegram is the emulator, polled; HTTP on free loopback ports unless PORT or METRICS_PORT was given. */
function localRuntimeConfig(config: Config, emulator: TelegramEmulator): Config {
  return {
    ...config,
    telegram: { ...config.telegram, token: emulator.token, apiRoot: emulator.apiRoot, mode: "polling" },
    // Nothing outside this machine needs to reach us.
    http: {
      ...config.http,
      host: "127.0.0.1",
      port: process.env.PORT ? config.http.port : 0,
      metrics: {
        ...config.http.metrics,
        host: "127.0.0.1",
        port: process.env.METRICS_PORT ? config.http.metrics.port : 0,
      },
    },
  };
}

/** SIGINT and SIGTERM stop the app, then run the cleanups, within SHUTDOWN_LIMIT_MS. Returns the shutdown. */
function shutdownOnSignals(app: App, cleanups: Array<() => Promise<unknown>>, logger: Logger) {
  let shuttingDown = false;
  const shutdown = async (reason: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ reason }, "shutting down");
    // Inside Docker's default 10 s stop timeout (and Kubernetes' 30 s grace): exit on our own terms, not SIGKILL.
    const force = setTimeout(() => {
      logger.error({ afterMs: SHUTDOWN_LIMIT_MS }, "shutdown did not finish in time: forcing exit");
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS);
    force.unref();
    try {
      await app.stop();
      for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  return shutdown;
}

function readConfig(): Config {
  try {
    // .env in the working directory, when there is one; the real environment wins over it.
    loadEnvFile();
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof EnvFileError) {
      process.stderr.write(`${error.message}\nSee .env.example for every variable.\n`);
      process.exit(1);
    }
    throw error;
  }
}

function localLogger(config: Config): Logger {
  mkdirSync(".tmp", { recursive: true });
  const destination = pino.destination({ dest: ".tmp/local.log", mkdir: true, sync: false });
  process.stderr.write("Local mode: logs are written to .tmp/local.log\n");
  return createLogger({ level: config.log.level, pretty: false, name: "payout-bot", destination });
}

type Storage = { kind: "redis"; url: string } | { kind: "memory" };

/**
 * REDIS_URL when set; otherwise a private redis-server when one is installed; otherwise, in local mode only,
 * in-memory storage (said loudly: nothing outlives the process). With a real bot token and no Redis at all, stop.
 */
async function resolveStorage(
  config: Config,
  logger: Logger,
  cleanups: Array<() => Promise<unknown>>,
): Promise<Storage> {
  if (config.redisUrl) return { kind: "redis", url: config.redisUrl };
  const install = "Install Redis (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis)";
  if (!redisServerAvailable()) {
    if (!config.localMode) {
      process.stderr.write(
        `No REDIS_URL and no redis-server on this machine.\n${install} or set REDIS_URL.\n`,
      );
      process.exit(1);
    }
    process.stderr.write(
      "⚠️  No REDIS_URL and no redis-server on this machine: running on IN-MEMORY storage.\n" +
        "   Conversations, orders, saved recipients and queued events are lost when you quit.\n" +
        `   ${install} or set REDIS_URL to keep them.\n`,
    );
    logger.warn(
      "no REDIS_URL and no redis-server: in-memory storage and in-process queues (nothing is kept)",
    );
    return { kind: "memory" };
  }
  const privateRedis = await startPrivateRedis();
  cleanups.push(() => privateRedis.stop());
  logger.warn({ port: privateRedis.port }, "no REDIS_URL: started a private redis-server (data is not kept)");
  return { kind: "redis", url: privateRedis.url };
}

main().catch((error: unknown) => {
  if (error instanceof DependencyError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`Fatal: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
