import { createHmac } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type Bot, BotError } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import type { Redis } from "ioredis";
import { createPayoutApi, type PayoutApi, ServerClock } from "./api/index.ts";
import { createRateAlertChecker, type RateAlertChecker } from "./bot/account/alerts/checker.ts";
import { createRepeatsJob } from "./bot/account/repeats/job.ts";
import { publishCommandMenus } from "./bot/commands.ts";
import type { BotContext, BotDeps, OpsPorts } from "./bot/context.ts";
import { createBot } from "./bot/create-bot.ts";
import { allFeatures, type Feature } from "./bot/features.ts";
import { createMerchantFeed } from "./bot/merchant/feature.ts";
import { type Alerts, createAlerts } from "./bot/ops/alerts/alerts.ts";
import { onRefundWithdrawalEvent } from "./bot/ops/refund/settlement.ts";
import { createDeliverMissing } from "./bot/recovery.ts";
import { createTelegramTransformers, type TelegramTransformerOptions } from "./bot/telegram-transformers.ts";
import type { Config } from "./config.ts";
import {
  createEventsPipeline,
  type EventsPipeline,
  ensureWebhookRegistered,
  type OpsAlert,
  type PaymentLinkEvent,
} from "./events/index.ts";
import { createHttpServer, DEFAULT_TELEGRAM_PATH, type HttpServer } from "./http/index.ts";
import { AccountLanguage } from "./i18n/account-language.ts";
import { createTranslator, type Translator } from "./i18n/index.ts";
import { languageResolver } from "./i18n/language-of.ts";
import type { Logger } from "./log/logger.ts";
import { createMetrics, type Metrics, observePayoutApi } from "./metrics.ts";
import { connectTelegram } from "./ops/connect-telegram.ts";
import { originOf } from "./ops/dependencies.ts";
import { createPayoutProbe } from "./ops/payout-probe.ts";
import { createStore, ProcessRegistry, type Store } from "./store/index.ts";
import {
  ALLOWED_UPDATES,
  createCallRecorder,
  createUpdateInbox,
  inboxWebhookHandler,
  type Poller,
  startPolling,
  type UpdateInbox,
} from "./updates/index.ts";

/**
 * The composition root: everything the process runs, wired once. main.ts (and the local mode launcher, and the
 * end-to-end harness) build an App from a validated Config and a connected Redis, so tests run the bot exactly as
 * production wires it.
 */
interface AppOptions {
  config: Config;
  logger: Logger;
  redis: Redis;
  /**
   * The events pipeline's queues: BullMQ on `redis` (default), or in-process when `redis` is the in-memory stand-in
   * of local mode (which cannot run BullMQ's scripts).
   */
  queueBackend?: "bullmq" | "memory";
  /** Where the payout API is (the real one, or the embedded sandbox main started). */
  payout: { baseUrl: string; apiKey: string; webhookSecret?: string };
  telegram: { token: string; botInfo?: UserFromGetMe };
  /** Telegram outbound policy (throttling off for benchmarks). */
  telegramPolicy?: TelegramTransformerOptions;
  /** The URL the payout API can reach our webhook at; for the embedded sandbox, our own loopback address. */
  publicUrl?: string | "self";
  features?: (deps: BotDeps) => Feature[];
  reconcileEveryMs?: number;
  /**
   * The payout API's clock, for deadlines, expiry and reconciliation: the embedded sandbox's clock (local mode,
   * tests). Without it the API's clock is tracked from its responses' Date headers (ServerClock).
   */
  now?: () => number;
  /** How often the account language setting is re-read (default 5 min). */
  accountRefreshMs?: number;
  /** How often batched ops alerts are posted (default 5 s; tests use less). */
  alertFlushMs?: number;
  /** How often armed rate alerts are checked against fresh prices (default 60 s). */
  rateAlertEveryMs?: number;
  /** Chats whose updates this process handles at once (default 32). */
  updateConcurrency?: number;
  /**
   * On stop, how long /readyz answers 503 while everything else still serves, so a load balancer stops sending
   * traffic before the server closes (main: 1 s; default 0 for in-process tests).
   */
  drainMs?: number;
  /** Extra observers of ops alerts and merchant events (tests). */
  hooks?: {
    onAlert?: (alert: OpsAlert) => unknown;
    onPaymentLinkEvent?: (event: PaymentLinkEvent) => unknown;
  };
}

export interface App {
  bot: Bot<BotContext>;
  api: PayoutApi;
  store: Store;
  translator: Translator;
  metrics: Metrics;
  events: EventsPipeline;
  alerts: Alerts;
  /** The scheduled rate-alert check (runs where the queue workers run). */
  rateAlerts: RateAlertChecker;
  http: HttpServer;
  accountLanguage: AccountLanguage;
  deps: BotDeps;
  /** The durable Telegram update inbox (both modes feed it; it feeds the bot). */
  inbox: UpdateInbox;
  /** Set after start(): the HTTP server's own URL. */
  httpUrl?: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

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
  options: Pick<AppOptions, "config" | "logger" | "redis" | "payout" | "telegramPolicy" | "now">,
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
  const store = createStore(redis);
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
    ...wiring,
  };
  return { deps, api, store, translator, accountLanguage, metrics, transformers };
}

export async function createApp(options: AppOptions): Promise<App> {
  const { config, logger, redis } = options;
  // One heartbeat per process (store/processes.ts): delivery locks, update leases and pending quote claims name it,
  // so another process tells a dead owner from a busy one. Started first, stopped after everything using it.
  const processes = new ProcessRegistry(redis);
  // The events pipeline is built from the bot (its Api) and the bot's ops commands use the pipeline: these ports
  // call into it once it exists (it does before the first update is handled).
  let pipeline: EventsPipeline | undefined;
  const built = () => {
    if (!pipeline) throw new Error("events pipeline used before it was built");
    return pipeline;
  };
  const ops: OpsPorts = {
    deadLetters: {
      list: (limit) => built().deadLetters.list(limit),
      replay: (id) => built().deadLetters.replay(id),
    },
    stats: () => built().stats(),
    recheckOrder: (orderId) => built().recheckOrder(orderId),
  };
  const { deps, api, store, translator, accountLanguage, metrics, transformers } = await createBotDeps(
    options,
    {
      ops,
      processes,
    },
  );
  // Every Telegram call made while an update is handled is recorded at the HTTP client (exactly once out).
  const recorder = createCallRecorder(store.updates, logger);
  const bot = createBot(deps, {
    token: options.telegram.token,
    botInfo: options.telegram.botInfo,
    transformers: [recorder.transformers.innermost, ...transformers, recorder.transformers.outermost],
    features: options.features ? options.features(deps) : allFeatures(deps),
    fetch: recorder.fetch,
  });
  const inbox = createUpdateInbox({
    repo: store.updates,
    recorder,
    handle: (update) => handleWithCatch(bot, update),
    logger,
    registry: metrics.registry,
    processes,
    lease: config.telegram.updateLease,
    concurrency: options.updateConcurrency,
  });

  const alerts = createAlerts({ ...deps, telegram: bot.api, metrics, flushEveryMs: options.alertFlushMs });
  const merchantFeed = createMerchantFeed({ ...deps, telegram: bot.api, alerts });
  const languageOf = languageResolver(store.users, accountLanguage);
  const repeats = createRepeatsJob({ deps, telegram: bot.api, languageOf, logger });
  const events = createEventsPipeline({
    redis,
    queueBackend: options.queueBackend,
    logger,
    store,
    api,
    telegram: bot.api,
    translator,
    languageOf,
    metrics,
    webhookSecret: options.payout.webhookSecret,
    allowUnsigned: config.payout.allowUnsignedWebhooks,
    reconcileEveryMs: options.reconcileEveryMs,
    now: deps.now,
    onAlert: async (alert) => {
      await options.hooks?.onAlert?.(alert);
      await alerts.onAlert(alert);
    },
    onPaymentLinkEvent: async (event) => {
      await options.hooks?.onPaymentLinkEvent?.(event);
      // A refund's withdrawal is not a merchant's traffic: it moves the refund and stops here.
      if (await onRefundWithdrawalEvent(deps, bot.api, event)) return;
      await merchantFeed(event);
    },
    deliverMissing: createDeliverMissing({ ...deps, telegram: bot.api }),
    afterTick: () => repeats.sendDue(),
    processes,
  });
  pipeline = events;
  const rateAlerts = createRateAlertChecker({
    store,
    api,
    telegram: bot.api,
    translator,
    languageOf: languageResolver(store.users, accountLanguage),
    logger,
    everyMs: options.rateAlertEveryMs,
  });

  const role = config.processRole;
  const http = createHttpServer({
    logger,
    host: config.http.host,
    port: config.http.port,
    // The tap records the last webhook (for /health) and raises signature-failure alerts. A worker process
    // (PROCESS_ROLE=worker) serves health and metrics only: webhooks go to the web processes.
    payoutWebhook: role === "worker" ? undefined : alerts.tapWebhook(events.webhookHandler),
    // Ready = this process can take traffic (Redis, queues). The payout API is not in it: when the provider is
    // down the bot still answers ("paused") — its health is in /health and payoutbot_payout_api_up.
    readiness: [...events.readiness],
    metrics: metrics.registry,
  });
  const payoutProbe = createPayoutProbe({
    ping: () => api.ping(),
    up: metrics.payoutApiUp,
    logger,
    target: originOf(options.payout.baseUrl),
  });

  let poller: Poller | undefined;
  let stopped = false;

  const app: App = {
    bot,
    api,
    store,
    translator,
    metrics,
    events,
    alerts,
    rateAlerts,
    http,
    accountLanguage,
    deps,
    inbox,
    async start() {
      await processes.start();
      payoutProbe.start();
      await accountLanguage.refresh();
      accountLanguage.start(options.accountRefreshMs);
      const { url } = await http.start();
      app.httpUrl = url;
      // web: acknowledge webhooks and serve the bot without queue workers, so acks never wait behind deliveries.
      if (role !== "web") {
        await events.start();
        rateAlerts.start();
      }
      alerts.start();
      if (role === "worker") {
        // Queue workers and the reconciler only: updates and webhook registration belong to the web processes.
        logger.info({ role, http: url }, "events worker started");
        return;
      }

      const publicUrl = options.publicUrl === "self" ? url : options.publicUrl;
      if (publicUrl && options.payout.webhookSecret) {
        await ensureWebhookRegistered({ api, publicUrl, secret: options.payout.webhookSecret, logger }).catch(
          (error: unknown) =>
            logger.error(
              { err: error },
              "could not register the payout webhook; the reconciler will catch up",
            ),
        );
      }

      if (!bot.isInited()) {
        bot.botInfo = await connectTelegram({ token: options.telegram.token, config, logger });
      }
      await bot.init();
      const menus = { privateExtra: [] as string[], adminGroup: [] as string[] };
      for (const feature of options.features ? options.features(deps) : allFeatures(deps)) {
        menus.privateExtra.push(...(feature.commands?.private ?? []));
        menus.adminGroup.push(...(feature.commands?.adminGroup ?? []));
      }
      await publishCommandMenus(bot.api, translator, { adminChatId: config.admin.chatId, menus }).catch(
        (error: unknown) => logger.warn({ err: error }, "could not publish the command menus"),
      );

      await inbox.start();
      if (config.telegram.mode === "webhook") {
        // Every process of one deployment must agree on the secret without sharing more config: derive it from the
        // bot token (one-way), unless TELEGRAM_WEBHOOK_SECRET is set.
        const secretToken =
          config.telegram.webhookSecret ??
          createHmac("sha256", options.telegram.token).update("telegram-webhook-secret").digest("hex");
        // Recorded and answered at once; the inbox handles it (a slow payout API never makes Telegram redeliver).
        http.setTelegramRoute({ handler: inboxWebhookHandler(inbox, logger), secretToken });
        await bot.api.setWebhook(`${config.http.publicUrl}${DEFAULT_TELEGRAM_PATH}`, {
          secret_token: secretToken,
          allowed_updates: [...ALLOWED_UPDATES],
        });
      } else {
        await bot.api.deleteWebhook();
        poller = startPolling({ api: bot.api, inbox, logger });
      }
      logger.info(
        { username: bot.botInfo.username, mode: config.telegram.mode, role, http: url },
        "bot started",
      );
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      http.beginDraining();
      payoutProbe.stop();
      accountLanguage.stop();
      await poller?.stop();
      if (options.drainMs) await sleep(options.drainMs);
      await http.stop(2_000);
      await inbox.stop();
      await alerts.stop();
      await rateAlerts.stop();
      await events.stop();
      // Last: a lease or lock held until now must not look abandoned while its work finishes; once gone, another
      // process takes over whatever is left at once.
      await processes.stop().catch(() => undefined);
      await api.close();
      logger.info("bot stopped");
    },
  };
  return app;
}

/**
 * `bot.handleUpdate` throws middleware errors as BotError and leaves bot.catch to its callers (bot.start and the
 * runner call it): so does the inbox. An error bot.catch handled counts as handled; anything else stays in the inbox.
 */
async function handleWithCatch(bot: Bot<BotContext>, update: Update): Promise<void> {
  try {
    await bot.handleUpdate(update);
  } catch (error) {
    if (!(error instanceof BotError)) throw error;
    await bot.errorHandler(error as BotError<BotContext>);
  }
}
