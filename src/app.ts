import type { Bot } from "grammy";
import type { PayoutApi } from "./api/index.ts";
import { createBotDeps } from "./app/bot-deps.ts";
import { type Running, startRunning, stopRunning } from "./app/lifecycle.ts";
import type { AppOptions } from "./app/options.ts";
import { handleWithCatch } from "./app/telegram.ts";
import { tapWebhook } from "./app/webhook-tap.ts";
import type { BotContext, BotDeps, OpsPorts } from "./bot/context.ts";
import { createBot, firstReadsOf } from "./bot/create-bot.ts";
import { allFeatures, type FeatureWiring, type Job, wireFeatures } from "./bot/features.ts";
import { createEventsPipeline, type EventsPipeline, setSendingMark } from "./events/index.ts";
import { createHttpServer, createMetricsServer, type HttpServer } from "./http/index.ts";
import type { ExtraRoutes, RawRequestHandler } from "./http/server.ts";
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
 * production wires it. From inside src/bot it takes only the bot's root modules and the feature registry
 * (bot/features.ts): the features declare their handlers, jobs and event sinks there. Its options are in
 * app/options.ts, the bot's dependencies in app/bot-deps.ts, start and stop in app/lifecycle.ts.
 */
export interface App {
  bot: Bot<BotContext>;
  api: PayoutApi;
  store: Store;
  translator: Translator;
  metrics: Metrics;
  events: EventsPipeline;
  http: HttpServer;
  accountLanguage: AccountLanguage;
  deps: BotDeps;
  /** The durable Telegram update inbox (both modes feed it; it feeds the bot). */
  inbox: UpdateInbox;
  /** Every background job, with its schedule (bot/features.ts collects them from the features). */
  jobs: Job[];
  /** The job of that name (run it now with `.run()`: tests, the local mode terminal). */
  job(name: string): Job;
  /** The payout webhook as the HTTP server serves it (the receiver, behind the tap that feeds /health). */
  payoutWebhook: RawRequestHandler;
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
  const late = lateBound();
  const parts = await createBotDeps(options, { ops: late.ops, processes });
  const { deps, api, store, translator, accountLanguage, metrics } = parts;
  const { bot, inbox, features } = createTelegramSide(options, parts, processes);
  const languageOf = languageResolver(store.users, accountLanguage);
  const schedule = { alertFlushMs: options.alertFlushMs, rateAlertEveryMs: options.rateAlertEveryMs };
  const botToken = options.telegram.token;
  const wiring = wireFeatures(features, { deps, telegram: bot.api, languageOf, metrics, schedule, botToken });
  late.wiring = wiring;
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
      await wiring.onAlert(alert);
    },
    onPaymentLinkEvent: async (event) => {
      await options.hooks?.onPaymentLinkEvent?.(event);
      await wiring.onPaymentLinkEvent(event);
    },
    deliverMissing: wiring.deliverMissing,
    afterTick: () => wiring.afterTick(),
    processes,
  });
  late.pipeline = events;
  const payoutWebhook = tapWebhook(events.webhookHandler, { ...deps, raise: wiring.raise });
  const servers = createServers(options, {
    metrics,
    events,
    payoutWebhook,
    routes: wiring.routes,
    ping: () => api.ping(),
  });
  metrics.setRefundSource(() => store.refunds.countOpen());
  const running: Running = {
    ...servers,
    ...{ options, processes, accountLanguage, events, inbox, bot, api, translator, features },
    jobs: wiring.jobs,
  };
  return assemble({ ...parts, bot, inbox, events, payoutWebhook, http: servers.http }, running);
}

/**
 * The events pipeline is built from the bot (its Api) and the bot's ops commands use the pipeline and the features'
 * sinks: these ports call into them once they exist (they do before the first update is handled).
 */
function lateBound() {
  const late: { pipeline?: EventsPipeline; wiring?: FeatureWiring; ops: OpsPorts } = { ops: {} };
  const built = () => {
    if (!late.pipeline) throw new Error("events pipeline used before it was built");
    return late.pipeline;
  };
  late.ops = {
    deadLetters: {
      list: (limit) => built().deadLetters.list(limit),
      replay: (id) => built().deadLetters.replay(id),
    },
    stats: () => built().stats(),
    recheckOrder: (orderId) => built().recheckOrder(orderId),
    approvalChanged: async (record) => late.wiring?.approvalChanged(record),
  };
  return late;
}

/** The bot (its features listed once) and the update inbox that feeds it. */
function createTelegramSide(
  options: AppOptions,
  parts: Awaited<ReturnType<typeof createBotDeps>>,
  processes: ProcessRegistry,
) {
  const { deps, store, metrics, transformers } = parts;
  const { logger, config } = options;
  // Every Telegram call made while an update is handled is recorded at the HTTP client (exactly once out).
  const recorder = createCallRecorder(store.updates, logger);
  const features = options.features ? options.features(deps) : allFeatures(deps);
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
    features,
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
  return { bot, inbox, features };
}

/** The HTTP server, the private metrics listener and the payout API probe. */
function createServers(
  options: AppOptions,
  parts: {
    metrics: Metrics;
    events: EventsPipeline;
    payoutWebhook: RawRequestHandler;
    routes: ExtraRoutes;
    ping(): Promise<unknown>;
  },
) {
  const { config, logger } = options;
  const { metrics } = parts;
  const http = createHttpServer({
    logger,
    host: config.http.host,
    port: config.http.port,
    // A worker process (PROCESS_ROLE=worker) serves health and metrics only: webhooks go to the web processes.
    payoutWebhook: config.processRole === "worker" ? undefined : parts.payoutWebhook,
    // Ready = this process can take traffic (Redis, queues). The payout API is not in it: when the provider is
    // down the bot still answers ("paused") — its health is in /health and payoutbot_payout_api_up.
    readiness: [...parts.events.readiness],
    // A worker serves no web pages either (the merchant Mini App is served by the web processes).
    routes: config.processRole === "worker" ? undefined : parts.routes,
    // The public port serves /metrics only to METRICS_TOKEN's bearer; Prometheus scrapes the listener below.
    ...(config.http.metrics.token
      ? { metrics: { registry: metrics.registry, token: config.http.metrics.token } }
      : {}),
  });
  const { port: metricsPort, host: metricsHost } = config.http.metrics;
  const metricsServer =
    metricsPort === undefined
      ? undefined
      : createMetricsServer({ logger, registry: metrics.registry, host: metricsHost, port: metricsPort });
  const payoutProbe = createPayoutProbe({
    ping: parts.ping,
    up: metrics.payoutApiUp,
    logger,
    target: originOf(options.payout.baseUrl),
  });
  return { http, metricsServer, payoutProbe };
}

/** The App object: its parts, and start/stop (app/lifecycle.ts) over what runs. */
function assemble(
  parts: Omit<App, "jobs" | "job" | "start" | "stop" | "httpUrl" | "metricsUrl">,
  running: Running,
): App {
  let poller: Poller | undefined;
  let stopped = false;
  const app: App = {
    bot: parts.bot,
    api: parts.api,
    store: parts.store,
    translator: parts.translator,
    metrics: parts.metrics,
    events: parts.events,
    http: parts.http,
    accountLanguage: parts.accountLanguage,
    deps: parts.deps,
    inbox: parts.inbox,
    payoutWebhook: parts.payoutWebhook,
    jobs: running.jobs,
    job(name) {
      const job = running.jobs.find((candidate) => candidate.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      return job;
    },
    async start() {
      const started = await startRunning(running);
      app.httpUrl = started.httpUrl;
      app.metricsUrl = started.metricsUrl;
      poller = started.poller;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopRunning(running, poller);
    },
  };
  return app;
}
