import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { dirname, join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { Api } from "grammy";
import { createPayoutApi } from "#src/api/index.js";
import { createTelegramTransformers, installTransformers } from "#src/bot/telegram-transformers.js";
import { jsonTransport } from "#src/bot/telegram-transport.js";
import { createEventsPipeline, setSendingMark } from "#src/events/index.js";
import { createHttpServer, PAYOUT_WEBHOOK_PATH } from "#src/http/index.js";
import { createTelegramFetch } from "#src/http/telegram-fetch.js";
import { AccountLanguage } from "#src/i18n/account-language.js";
import { createTranslator } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { createMetrics } from "#src/metrics.js";
import { renderStatusCard } from "#src/orders/index.js";
import type { Sandbox } from "#src/standins/sandbox/index.js";
import { createStore } from "#src/store/index.js";
import { countingLogger, type LogCounter } from "../lib/bot-deps.ts";
import { spawnChild } from "../lib/child.ts";
import { runningCompiled } from "../lib/compiled.ts";
import { type BenchRedis, redisDelta } from "../lib/redis.ts";
import { type LatencySummary, progress, summarize } from "../lib/report.ts";
import { type ThreadCpu, threadCpuDelta, threadCpuMs } from "../lib/thread-cpu.ts";
import { orderRecord, syntheticOrders } from "./events.ts";
import type { SendPlan, SendReport } from "./sender-child.ts";
import { postSerially, type StageCost } from "./stages.ts";
import type { Tally, Timeline } from "./telegram-child.ts";

/**
 * One webhook run: N/2 confirmed NGN payouts (each user's status card already sent, as the bot does at Confirm),
 * then their 2 × N/2 signed events posted to the real HTTP server → createEventsPipeline (wired as createApp wires
 * it: the same Api with the outbound policy) → the Telegram emulator in its own process. Measures the
 * acknowledgements, then waits until every notification reached Telegram and checks none was lost or repeated.
 */
export interface ScenarioOptions {
  label: string;
  events: number;
  ratePerSecond: number;
  connections: number;
  /** Telegram's flood limits in the emulator and the throttler in the bot. */
  limits: boolean;
  redis: BenchRedis;
  sandbox: Sandbox;
  /** Give up waiting for deliveries after this long. */
  deliveryTimeoutMs: number;
  /**
   * Events of other orders posted and delivered before the measured window (at 500/s or the run's rate if higher):
   * the process a deployment runs has long since compiled its hot paths, and a cold start would put V8's one-time
   * work (the optimizing compiler's threads included) into the CPU per event.
   */
  warmupEvents?: number;
  /**
   * false: the queue workers are not started, as in a PROCESS_ROLE=web process: it applies and delivers what it
   * receives by itself, with no retries, sweeps or reconciler behind it.
   */
  workers?: boolean;
  /** Write a .cpuprofile of the measured window (posting until delivered) into this directory. */
  cpuProfileDir?: string;
  /**
   * Count Redis work stage by stage: events posted one at a time under a MONITOR (./stages.ts). Latencies of such a
   * run mean nothing; only its Redis figures are used.
   */
  staged?: boolean;
}

export interface ScenarioResult {
  label: string;
  events: number;
  /** Events delivered before the measured window (`warmupEvents`), none lost or repeated. */
  warmupEvents: number;
  orders: number;
  limits: boolean;
  workers: boolean;
  staged: boolean;
  ack: LatencySummary;
  /** The same requests timed inside the bot's process (request event → response finished). */
  server: LatencySummary;
  statuses: Record<string, number>;
  acceptedPerSecond: number;
  postingSeconds: number;
  lagP99Ms: number;
  /** From the first POST until the last notification reached Telegram. */
  deliverySeconds: number | undefined;
  notifications: number;
  cardEdits: number;
  lost: number;
  duplicates: number;
  tooManyRequests: number;
  deadLetters: number;
  cpuMsPerEvent: number;
  /** The kernel's part of it (system time: syscalls, the socket writes' TCP work). */
  systemCpuMsPerEvent: number;
  /** The same by thread (ms per event): the main thread and V8's helper threads (GC, the optimizing compiler). */
  threadCpuMsPerEvent: ThreadCpu;
  eventLoopUtilization: number;
  /** Event-loop delay while posting (ms): how long a ready callback waited for the loop. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Time in GC while posting (ms) and the longest pause. */
  gc: GcSummary;
  /**
   * Redis commands per event from the first POST until everything was delivered, less what Redis runs with no event
   * in flight (its rate measured just before, over the same length of time); and the top commands.
   */
  redisPerEvent: number;
  /** The same with the background commands left in, and their rate (commands/s). */
  redisPerEventWithBackground: number;
  redisBackgroundPerSecond: number;
  redisTop: Record<string, number>;
  /** Every command per event (server side, including the ones Lua scripts call). */
  redisAll: Record<string, number>;
  redisCpuMsPerEvent: number;
  /** Webhook POSTed → the status card edited at Telegram, per event. */
  toCardEdit: LatencySummary;
  /** Webhook POSTed → both the card edit and the notification at Telegram (the two-message reply). */
  toBoth: LatencySummary;
  stages: StageCost[] | undefined;
  logs: LogCounter;
}

/** GC pauses in this process while measuring (PerformanceObserver "gc" entries), overall and by kind. */
export interface GcSummary {
  totalMs: number;
  maxMs: number;
  /** minor = scavenge of the young generation, major = mark-compact, incremental = marking steps. */
  byKind: Record<string, { count: number; totalMs: number; maxMs: number }>;
}

const GC_KINDS: Record<number, string> = { 1: "minor", 2: "major", 4: "incremental", 8: "weakcb" };

function watchGc(): { stop(): GcSummary } {
  const summary: GcSummary = { totalMs: 0, maxMs: 0, byKind: {} };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      summary.totalMs += entry.duration;
      summary.maxMs = Math.max(summary.maxMs, entry.duration);
      const detail = (entry as { detail?: { kind?: number } }).detail;
      const kind = GC_KINDS[detail?.kind ?? 0] ?? "other";
      const slot = summary.byKind[kind] ?? { count: 0, totalMs: 0, maxMs: 0 };
      summary.byKind[kind] = slot;
      slot.count += 1;
      slot.totalMs += entry.duration;
      slot.maxMs = Math.max(slot.maxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop() {
      observer.disconnect();
      return summary;
    },
  };
}

/** How long Redis is watched with nothing in flight, for the background rate. */
const IDLE_WINDOW_MS = 2_000;

const here = (file: string) => new URL(file, import.meta.url).pathname;

/** In-process CPU profile of a window (the inspector's Profiler), for bench/tools/cpuprofile-summary.ts. */
async function startProfiler(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  return {
    async stop(file) {
      const { profile } = await session.post("Profiler.stop");
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const { redis } = options.redis;
  await options.redis.probe.flushall();
  const run = randomBytes(4).toString("hex");
  const warmupOrderCount = Math.floor((options.warmupEvents ?? 0) / 2);
  const allOrders = syntheticOrders(warmupOrderCount + Math.floor(options.events / 2), 50_000_000, run);
  const warmupOrders = allOrders.slice(0, warmupOrderCount);
  const orders = allOrders.slice(warmupOrderCount);
  const { logger, counter } = countingLogger("info");

  // Siblings of this module: .ts under tsx, .js in the compiled bench (bench/lib/compiled.ts).
  const extension = runningCompiled ? "js" : "ts";
  const telegramSide = spawnChild(here(`./telegram-child.${extension}`));
  const sender = spawnChild(here(`./sender-child.${extension}`));
  try {
    const { token, apiRoot } = await telegramSide.request<{ token: string; apiRoot: string }>("start", {
      callLogLimit: (options.events + (options.warmupEvents ?? 0)) * 4 + 20_000,
    });
    for (let i = 0; i < allOrders.length; i += 1_000) {
      await telegramSide.request(
        "users",
        allOrders.slice(i, i + 1_000).map((order) => order.userId),
      );
    }

    progress(`${options.label}: creating ${allOrders.length} confirmed orders with their status cards`);
    const store = createStore(redis);
    const translator = await createTranslator({ logger });
    const setupApi = new Api(token, { apiRoot });
    const t = translator.t("en");
    const now = Date.now();
    for (let i = 0; i < allOrders.length; i += 50) {
      await Promise.all(
        allOrders.slice(i, i + 50).map(async (synthetic) => {
          await store.users.touch({ id: synthetic.userId, firstName: "Ada", telegramLanguage: "en" });
          const order = await store.orders.create(orderRecord(synthetic, now));
          const card = renderStatusCard(order, t, "en-NG");
          const sent = await setupApi.sendMessage(order.chatId, card.text, {
            parse_mode: "HTML",
            ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
          });
          await store.orders.annotate(order.orderId, {
            statusMessageId: sent.message_id,
            confirmedAt: new Date().toISOString(),
            // Delivered, as the bot records it after sending the card (else the recovery sweep would take it up).
            deliveredAt: new Date().toISOString(),
          });
        }),
      );
    }

    // Wired as createApp wires it.
    const metrics = createMetrics({ defaultMetrics: true });
    const api = createPayoutApi({ baseUrl: options.sandbox.baseUrl, apiKey: options.sandbox.apiKey, logger });
    const accountLanguage = new AccountLanguage(
      async () => (await api.getUser()).account?.settings?.language,
      logger,
    );
    await accountLanguage.refresh();
    // The HTTP client production's bot.api uses (the call recorder's base, src/http/telegram-fetch.ts).
    const telegram = new Api(token, { apiRoot, fetch: createTelegramFetch() as unknown as typeof fetch });
    // Innermost, as createBot installs it on bot.api.
    telegram.config.use(jsonTransport(telegram));
    installTransformers(telegram, [
      setSendingMark,
      ...createTelegramTransformers({
        throttle: options.limits,
        onError: (method, code) => metrics.telegramErrors.inc({ method, code: String(code) }),
      }),
    ]);
    const secret = randomBytes(24).toString("hex");
    const events = createEventsPipeline({
      redis,
      logger,
      store,
      api,
      telegram,
      translator,
      languageOf: languageResolver(store.users, accountLanguage),
      metrics,
      webhookSecret: secret,
      allowUnsigned: false,
    });
    const http = createHttpServer({
      logger,
      host: "127.0.0.1",
      port: 0,
      payoutWebhook: events.webhookHandler,
      readiness: events.readiness,
    });
    // In-process time of each webhook request, from the server's "request" event to the response's "finish":
    // what the bot spends, without the sender's and the network stack's share of the ack latency.
    const serverMs: number[] = [];
    http.server.prependListener("request", (req, res) => {
      if (req.url !== PAYOUT_WEBHOOK_PATH) return;
      const started = performance.now();
      res.once("finish", () => serverMs.push(performance.now() - started));
    });
    const { url } = await http.start();
    const workers = options.workers ?? true;
    if (workers) await events.start();
    if (options.limits) await telegramSide.request("rateLimits", true);
    const planFor = (sent: typeof orders, ratePerSecond = options.ratePerSecond): SendPlan => ({
      url: `${url}${PAYOUT_WEBHOOK_PATH}`,
      secret,
      run,
      orders: sent,
      ratePerSecond,
      connections: options.connections,
      window: 25,
    });
    /** Until `expected` notifications reached Telegram since the mark and the queues are idle, or the timeout. */
    const awaitDeliveries = async (expected: number): Promise<void> => {
      const deadline = Date.now() + options.deliveryTimeoutMs;
      let lastLog = 0;
      for (;;) {
        const { sends } = await telegramSide.request<{ sends: number }>("count");
        const stats = await events.stats();
        const busy = Object.entries(stats).some(
          ([queue, counts]) =>
            !queue.includes("reconcile") &&
            (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) > 0,
        );
        if (sends >= expected && !busy) return;
        if (Date.now() > deadline) {
          progress(
            `${options.label}: gave up waiting after ${options.deliveryTimeoutMs / 1000} s (${sends}/${expected})`,
          );
          return;
        }
        if (Date.now() - lastLog > 10_000) {
          lastLog = Date.now();
          progress(`${options.label}: ${sends}/${expected} notifications delivered`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await telegramSide.request("mark");
    if (warmupOrders.length > 0) {
      progress(`${options.label}: warming up with ${warmupOrders.length * 2} events of other orders`);
      // At least the benchmark's own rate: a slow run (10 events/s) should not spend minutes warming up.
      await sender.request<SendReport>("send", planFor(warmupOrders, Math.max(options.ratePerSecond, 500)));
      await awaitDeliveries(warmupOrders.length * 2);
      const warm = await telegramSide.request<Tally>("tally");
      if (warm.sends !== warmupOrders.length * 2)
        throw new Error(`the warm-up delivered ${warm.sends} of ${warmupOrders.length * 2} notifications`);
      await telegramSide.request("mark");
    }

    progress(`${options.label}: posting ${orders.length * 2} events at ${options.ratePerSecond}/s`);
    // What Redis runs with no event in flight (the reconciler's and inbox's sweeps, heartbeats, BullMQ's
    // housekeeping): its rate times the measured window is left out of the commands per event.
    const idleBefore = await options.redis.snapshot();
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const idle = redisDelta(idleBefore, await options.redis.snapshot());
    const idlePerMs = idle.total / (performance.now() - idleStarted);
    globalThis.gc?.();
    const profiler = options.cpuProfileDir ? await startProfiler() : undefined;
    const redisBefore = await options.redis.snapshot();
    const windowStarted = performance.now();
    const cpuBefore = process.cpuUsage();
    const threadsBefore = threadCpuMs();
    const eluBefore = performance.eventLoopUtilization();
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const gcPauses = watchGc();
    const plan = planFor(orders);
    const serial = options.staged
      ? await postSerially({
          url: plan.url,
          secret,
          orders,
          run,
          redisUrl: options.redis.server.url,
          notifications: async () => (await telegramSide.request<{ sends: number }>("count")).sends,
        })
      : undefined;
    const report = serial?.report ?? (await sender.request<SendReport>("send", plan));
    const elu = performance.eventLoopUtilization(eluBefore);
    loopDelay.disable();
    const gc = gcPauses.stop();

    const expected = orders.length * 2;
    await awaitDeliveries(expected);
    const cpu = process.cpuUsage(cpuBefore);
    const threads = threadCpuDelta(threadsBefore, threadCpuMs());
    const redisAfter = await options.redis.snapshot();
    const redisUsed = redisDelta(redisBefore, redisAfter);
    const backgroundCommands = idlePerMs * (performance.now() - windowStarted);
    if (profiler && options.cpuProfileDir) {
      const file = join(options.cpuProfileDir, `webhooks-${options.label.replace(/\W+/g, "-")}.cpuprofile`);
      await profiler.stop(file);
      progress(`${options.label}: CPU profile of the measured window in ${file}`);
    }
    const tally = await telegramSide.request<Tally>("tally");
    const timeline = await telegramSide.request<Timeline>("timeline");
    const toCardEdit: number[] = [];
    const toBoth: number[] = [];
    for (const order of orders) {
      const edits = timeline.edits[String(order.userId)] ?? [];
      const sends = timeline.sends[String(order.userId)] ?? [];
      (["received", "sent"] as const).forEach((kind, k) => {
        const posted = report.postedAt[`${order.index}:${kind}`];
        const edit = edits[k];
        const sent = sends[k];
        if (posted === undefined || edit === undefined) return;
        toCardEdit.push(edit - posted);
        if (sent !== undefined) toBoth.push(Math.max(edit, sent) - posted);
      });
    }
    const deadLetters = (await events.deadLetters.list(1_000)).length;
    let lost = 0;
    let duplicates = 0;
    for (const order of orders) {
      const got = tally.sendsByChat[String(order.userId)] ?? 0;
      lost += Math.max(0, 2 - got);
      duplicates += Math.max(0, got - 2);
    }
    const accepted = report.statuses["200 ok"] ?? 0;
    const postingSeconds = (report.lastAckAt - report.startedAt) / 1000;

    await http.stop(2_000);
    await events.stop();
    await api.close();
    return {
      label: options.label,
      events: expected,
      warmupEvents: warmupOrders.length * 2,
      orders: orders.length,
      limits: options.limits,
      workers,
      staged: options.staged ?? false,
      ack: summarize(report.latenciesMs),
      server: summarize(serverMs),
      statuses: report.statuses,
      acceptedPerSecond: accepted / postingSeconds,
      postingSeconds,
      lagP99Ms: report.lagP99Ms,
      deliverySeconds:
        tally.sends >= expected && tally.lastAt > 0 ? (tally.lastAt - report.startedAt) / 1000 : undefined,
      notifications: tally.sends,
      cardEdits: tally.edits,
      lost,
      duplicates,
      tooManyRequests: tally.tooMany,
      deadLetters,
      cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / expected,
      systemCpuMsPerEvent: cpu.system / 1000 / expected,
      threadCpuMsPerEvent: Object.fromEntries(
        Object.entries(threads)
          .filter(([, ms]) => ms > 0)
          .map(([name, ms]) => [name, ms / expected]),
      ),
      eventLoopUtilization: elu.utilization,
      loopDelay: {
        p50: loopDelay.percentile(50) / 1e6,
        p99: loopDelay.percentile(99) / 1e6,
        max: loopDelay.max / 1e6,
      },
      gc,
      redisPerEvent: (redisUsed.total - backgroundCommands) / expected,
      redisPerEventWithBackground: redisUsed.total / expected,
      redisBackgroundPerSecond: idlePerMs * 1000,
      redisTop: Object.fromEntries(
        Object.entries(redisUsed.calls)
          .slice(0, 8)
          .map(([name, count]) => [name, count / expected]),
      ),
      redisAll: Object.fromEntries(
        Object.entries(redisUsed.calls).map(([name, count]) => [name, count / expected]),
      ),
      redisCpuMsPerEvent: (redisUsed.cpuSeconds * 1000) / expected,
      toCardEdit: summarize(toCardEdit),
      toBoth: summarize(toBoth),
      stages: serial?.stages,
      logs: counter,
    };
  } finally {
    await telegramSide.request("close").catch(() => undefined);
    await telegramSide.stop();
    await sender.stop();
  }
}
