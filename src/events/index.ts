import type { Api } from "grammy";
import type { Redis } from "ioredis";
import { parseWebhookEvent } from "../api/index.ts";
import type { RawRequestHandler, ReadinessCheck } from "../http/server.ts";
import type { LanguageCode, Translator } from "../i18n/index.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics.ts";
import { ProcessRegistry, type Store, type UserRecord } from "../store/index.ts";
import { EventDeduper } from "./dedupe.ts";
import { createDeliveryProcessor, type DeliveryJobData } from "./delivery.ts";
import { createIngestProcessor, type IngestJobData, webhookEventRefs } from "./ingest.ts";
import { QUEUE_NAMES } from "./keys.ts";
import { Notifier } from "./notifier.ts";
import { Outbox } from "./outbox.ts";
import type { DeadLetter, QueueBackend, RetryOverrides } from "./queue.ts";
import { createBullmqBackend } from "./queue-bullmq.ts";
import { createMemoryBackend } from "./queue-memory.ts";
import { createWebhookReceiver } from "./receiver.ts";
import {
  type CheckOutcome,
  createReconciler,
  DEFAULT_RECONCILER_OPTIONS,
  type ReconcilerOptions,
} from "./reconciler.ts";
import {
  createRecoverySweep,
  DEFAULT_RECOVERY_OPTIONS,
  type DeliverMissing,
  type RecoveryOptions,
} from "./recovery.ts";
import { createRequestNotices } from "./request-notices.ts";
import type { EventsPayoutApi, OpsAlert, PaymentLinkEvent } from "./types.ts";

export { dedupeIdentity } from "./dedupe.ts";
export { QUEUE_NAMES } from "./keys.ts";
export { UnreachableUserError } from "./notifier.ts";
export { type DeadLetter, RetryLaterError } from "./queue.ts";
export type { DeliverMissing, RecoveredMessages } from "./recovery.ts";
export { ensureWebhookRegistered, type RegistrationAction } from "./registration.ts";
export { checkWebhookSignature, signWebhookBody } from "./signature.ts";
export type { EventsPayoutApi, OpsAlert, PaymentLinkEvent } from "./types.ts";

export interface EventsPipelineDeps {
  /** The app's client (the pipeline's own keys); BullMQ gets a duplicate() of it. */
  redis: Redis;
  /**
   * Where jobs wait: "bullmq" (Redis; durable, shared by every process — the default) or "memory" (in-process; for
   * local mode on an in-memory Redis stand-in, which cannot run BullMQ's scripts).
   */
  queueBackend?: "bullmq" | "memory";
  logger: Logger;
  store: Store;
  api: EventsPayoutApi;
  /** grammY Api with auto-retry and the throttler installed (bursts are delivered late, never dropped). */
  telegram: Api;
  translator: Translator;
  /**
   * The owner's language: chosen → Telegram's → account default → en. Deliveries pass the user record they have
   * just read (undefined: no record), so the resolver need not read it again.
   */
  languageOf: (userId: number, user?: UserRecord) => Promise<LanguageCode>;
  metrics?: Metrics;
  webhookSecret?: string;
  allowUnsigned?: boolean;
  onAlert?: (alert: OpsAlert) => unknown;
  onPaymentLinkEvent?: (event: PaymentLinkEvent) => unknown;
  /**
   * Sends a confirmed order's missing invoice / status card (the bot renders them). With it, the recovery sweep
   * runs at start and on every reconciler tick (src/events/recovery.ts).
   */
  deliverMissing?: DeliverMissing;
  recovery?: Partial<RecoveryOptions>;
  /** More due-time work run after every reconciler tick (the bot's repeat sends); a failure waits for the next tick. */
  afterTick?: () => Promise<unknown>;
  /**
   * Reconciler tick period (default 7 s). A tick that finds on-chain withdrawals waiting for blocks keeps checking
   * them (every 2 s each) until the next tick is due.
   */
  reconcileEveryMs?: number;
  reconciler?: Partial<ReconcilerOptions>;
  /** After a non-final transition the reconciler re-checks the order this much later (default 60 s). */
  followUpMs?: number;
  /** Parallel deliveries per process (different orders; one order is always one at a time). Default 16. */
  deliveryConcurrency?: number;
  /** Retry policy overrides per queue (defaults: ingest 8 attempts from 1 s, deliveries 10 from 2 s). */
  retries?: Partial<Record<"ingest" | "deliveries", RetryOverrides>>;
  /** BullMQ key prefix (default "bull"). */
  queuePrefix?: string;
  /** Clock for expiry and reconciler scheduling (tests move it forward). */
  now?: () => number;
  /**
   * This process's heartbeat (shared with other parts of the process when given). Without one the pipeline keeps
   * its own. Delivery locks name it, so a restarted or sibling process takes over a dead one's locks at once.
   */
  processes?: ProcessRegistry;
  /** How long stop() waits for jobs in flight before forcing the workers closed. Default 10 s. */
  stopGraceMs?: number;
}

export interface EventsPipeline {
  /** Where jobs wait: BullMQ on Redis, or local mode's in-process queues. */
  readonly queueBackend: "bullmq" | "memory";
  /** POST /webhooks/payout handler for createHttpServer({ payoutWebhook }). Works before start(). */
  webhookHandler: RawRequestHandler;
  /** Redis and queue reachability for /readyz (app.ts adds the payout API ping). */
  readiness: ReadinessCheck[];
  start(): Promise<void>;
  /** Graceful: stop taking jobs, finish the ones in flight, close workers, queues and connections. */
  stop(): Promise<void>;
  deadLetters: { list(limit?: number): Promise<DeadLetter[]>; replay(id: string): Promise<boolean> };
  /** Job counts by queue and state. */
  stats(): Promise<Record<string, Record<string, number>>>;
  /** Check one order against the API now (an ops "re-check" button); missed transitions go the usual way. */
  recheckOrder(orderId: string): Promise<CheckOutcome | "unknown_order">;
  /** Check the on-chain withdrawals waiting for confirmations now (a block was just mined); returns how many. */
  recheckPendingOnchain(): Promise<number>;
}

export function createEventsPipeline(deps: EventsPipelineDeps): EventsPipeline {
  const logger = deps.logger.child({ module: "events" });
  const now = deps.now ?? Date.now;
  const prefix = deps.queuePrefix ?? "bull";
  const queues: QueueBackend<IngestJobData, DeliveryJobData> =
    deps.queueBackend === "memory"
      ? createMemoryBackend({ retries: deps.retries })
      : createBullmqBackend({
          redis: deps.redis,
          prefix,
          retries: deps.retries,
          onConnectionError: (error) => logger.warn({ err: error }, "queue redis connection error"),
        });
  const outbox = new Outbox(deps.redis);
  const ownsRegistry = !deps.processes;
  const processes = deps.processes ?? new ProcessRegistry(deps.redis);
  const unregisterQueueSource = deps.metrics?.setQueueSource(() => queues.counts());

  const webhookHandler = createWebhookReceiver({
    secret: deps.webhookSecret,
    allowUnsigned: deps.allowUnsigned ?? false,
    parseEvent: (json) => {
      const parsed = parseWebhookEvent(json);
      return parsed.ok ? { event: parsed.event.event, refs: webhookEventRefs(parsed.event) } : undefined;
    },
    deduper: new EventDeduper(deps.redis),
    ingest: queues.ingest,
    logger,
    metrics: deps.metrics,
  });

  const reconcilerOptions = { ...DEFAULT_RECONCILER_OPTIONS, ...deps.reconciler };
  const reconcileEveryMs = deps.reconcileEveryMs ?? 7_000;
  const reconciler = createReconciler({
    redis: deps.redis,
    store: deps.store,
    api: deps.api,
    ingest: queues.ingest,
    logger,
    now,
    options: reconcilerOptions,
  });

  const deliverMissing = deps.deliverMissing;
  const recovery = deliverMissing
    ? createRecoverySweep({
        store: deps.store,
        deliver: deliverMissing,
        logger,
        now,
        options: { ...DEFAULT_RECOVERY_OPTIONS, ...deps.recovery },
      })
    : undefined;
  const sweep = async () => {
    try {
      await recovery?.sweep();
    } catch (error) {
      logger.warn({ err: error }, "recovery sweep failed; the next tick tries again");
    }
  };

  let started = false;
  let stopped = false;

  function onFailed(
    queue: string,
    job: { id: string; name: string; attemptsMade: number },
    error: Error,
    exhausted: boolean,
  ) {
    logger.warn({ err: error, queue, jobId: job.id, attempts: job.attemptsMade, exhausted }, "job failed");
    if (!exhausted || queue === QUEUE_NAMES.reconcile) return;
    Promise.resolve(
      deps.onAlert?.({
        type: "dead_letter",
        queue,
        jobId: job.id,
        name: job.name,
        reason: error.message,
        attempts: job.attemptsMade,
        at: new Date().toISOString(),
      }),
    ).catch((alertError: unknown) => logger.error({ err: alertError }, "onAlert failed"));
  }

  return {
    queueBackend: queues.kind,
    webhookHandler,
    readiness: [
      { name: "redis", check: () => deps.redis.ping() },
      { name: "queue", check: () => queues.ping() },
    ],

    async start() {
      if (started) return;
      if (stopped) throw new Error("events pipeline was stopped; create a new one");
      started = true;
      if (ownsRegistry) await processes.start();
      const notifier = new Notifier({
        telegram: deps.telegram,
        store: deps.store,
        logger,
        metrics: deps.metrics,
      });
      const ingest = createIngestProcessor({
        redis: deps.redis,
        store: deps.store,
        outbox,
        deliveries: queues.deliveries,
        api: deps.api,
        logger,
        now,
        followUpMs: deps.followUpMs ?? 60_000,
        onchainPollMs: reconcilerOptions.onchainPollMs,
        paymentLinkHook: !!deps.onPaymentLinkEvent,
      });
      const deliver = createDeliveryProcessor({
        redis: deps.redis,
        store: deps.store,
        outbox,
        notifier,
        deliveries: queues.deliveries,
        translator: deps.translator,
        languageOf: deps.languageOf,
        logger,
        onAlert: deps.onAlert,
        onPaymentLinkEvent: deps.onPaymentLinkEvent,
        onRequestStage: createRequestNotices({
          telegram: deps.telegram,
          store: deps.store,
          translator: deps.translator,
          languageOf: (userId) => deps.languageOf(userId),
          logger,
          now,
        }),
        processes,
        onNotificationNotRepeated: () => deps.metrics?.notifications.inc({ kind: "not_repeated" }),
      });
      await queues.startWorkers({
        ingest,
        deliveries: deliver,
        reconcileTick: async () => {
          const outcome = await reconciler.tick(reconcileEveryMs - reconcilerOptions.stepMs);
          await sweep();
          await deps
            .afterTick?.()
            .catch((error: unknown) =>
              logger.warn({ err: error }, "after-tick work failed; the next tick tries again"),
            );
          return outcome;
        },
        deliveryConcurrency: deps.deliveryConcurrency ?? 16,
        reconcileEveryMs,
        onFailed,
        onError: (queue, error) => logger.error({ err: error, queue }, "worker error"),
      });
      logger.info({ backend: queues.kind, prefix }, "events pipeline started");
      // Orders a previous process confirmed but died before delivering: at once, not at the first tick.
      void sweep();
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      reconciler.stop();
      await queues.close(deps.stopGraceMs ?? 10_000);
      // After the workers: a lock still held until now must not look abandoned while its job finishes.
      if (ownsRegistry && started) await processes.stop().catch(() => undefined);
      unregisterQueueSource?.();
      logger.info("events pipeline stopped");
    },

    deadLetters: {
      list: (limit = 50) => queues.listDeadLetters(limit),
      replay: (id) => queues.replayDeadLetter(id),
    },
    stats: () => queues.counts(),

    async recheckOrder(orderId) {
      const order = await deps.store.orders.get(orderId);
      return order ? reconciler.check(order) : "unknown_order";
    },
    recheckPendingOnchain: () => reconciler.checkPendingOnchain(),
  };
}
