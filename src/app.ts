import { setTimeout as sleep } from "node:timers/promises";
import type { Bot } from "grammy";
import type { PayoutApi } from "./api/index.ts";
import { createBotDeps } from "./app/bot-deps.ts";
import type { AppOptions } from "./app/options.ts";
import { handleWithCatch, startTelegram } from "./app/telegram.ts";
import { createRateAlertChecker, type RateAlertChecker } from "./bot/account/alerts/checker.ts";
import { createRepeatsJob } from "./bot/account/repeats/job.ts";
import type { BotContext, BotDeps, OpsPorts } from "./bot/context.ts";
import { createBot, firstReadsOf } from "./bot/create-bot.ts";
import { allFeatures } from "./bot/features.ts";
import { createMerchantFeed, miniAppRoutes } from "./bot/merchant/feature.ts";
import { type Alerts, createAlerts } from "./bot/ops/alerts/alerts.ts";
import { onRefundWithdrawalEvent } from "./bot/ops/refund/settlement.ts";
import { createDeliverMissing } from "./bot/recovery.ts";
import {
  createEventsPipeline,
  type EventsPipeline,
  ensureWebhookRegistered,
  setSendingMark,
} from "./events/index.ts";
import { createHttpServer, createMetricsServer, type HttpServer } from "./http/index.ts";
import type { AccountLanguage } from "./i18n/account-language.ts";
import type { Translator } from "./i18n/index.ts";
import { languageResolver } from "./i18n/language-of.ts";
import type { Metrics } from "./metrics.ts";
import { originOf } from "./ops/dependencies.ts";
import { createPayoutProbe } from "./ops/payout-probe.ts";
import { ProcessRegistry, type Store } from "./store/index.ts";
import { createCallRecorder, createUpdateInbox, type Poller, type UpdateInbox } from "./updates/index.ts";

/**
 * The composition root: everything the process runs, wired once. main.ts (and the local mode launcher, and the
 * end-to-end harness) build an App from a validated Config and a connected Redis, so tests run the bot exactly as
 * production wires it. Its options are in app/options.ts, the bot's dependencies in app/bot-deps.ts, the Telegram
 * side of start-up in app/telegram.ts.
 */
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
  /** Set after start() when METRICS_PORT is not "off": the metrics listener's URL (GET /metrics). */
  metricsUrl?: string;
  start(): Promise<void>;
  stop(): Promise<void>;
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
    // Innermost: a notification's sending mark is set as its call leaves, after the outbound pacer's wait.
    transformers: [
      setSendingMark,
      recorder.transformers.innermost,
      ...transformers,
      recorder.transformers.outermost,
    ],
    features: options.features ? options.features(deps) : allFeatures(deps),
    fetch: recorder.fetch,
  });
  const inbox = createUpdateInbox({
    repo: store.updates,
    recorder,
    handle: (update) => handleWithCatch(bot, update),
    firstReads: firstReadsOf(bot.api, deps),
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
    previousWebhookSecret: config.payout.previousWebhookSecret,
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
    routes: role === "worker" ? undefined : miniAppRoutes(deps, options.telegram.token),
    // The public port serves /metrics only to METRICS_TOKEN's bearer; Prometheus scrapes the listener below.
    ...(config.http.metrics.token
      ? { metrics: { registry: metrics.registry, token: config.http.metrics.token } }
      : {}),
  });
  metrics.setRefundSource(() => store.refunds.countOpen());
  const { port: metricsPort, host: metricsHost } = config.http.metrics;
  const metricsServer =
    metricsPort === undefined
      ? undefined
      : createMetricsServer({ logger, registry: metrics.registry, host: metricsHost, port: metricsPort });
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
      if (metricsServer) app.metricsUrl = (await metricsServer.start()).url;
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

      poller = await startTelegram({
        bot,
        token: options.telegram.token,
        config,
        logger,
        translator,
        features: options.features ? options.features(deps) : allFeatures(deps),
        inbox,
        http,
      });
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
      await metricsServer?.stop();
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
