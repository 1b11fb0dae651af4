import { parseWebhookEvent } from "#src/api/index.js";
import { ProcessRegistry } from "#src/store/index.js";
import { createDeliveryProcessor, type DeliveryJobData } from "./delivery.ts";
import { createIngestProcessor, type IngestJobData, webhookEventRefs } from "./ingest.ts";
import { QUEUE_NAMES } from "./keys.ts";
import { Notifier } from "./notifier.ts";
import type { QueueBackend } from "./queue.ts";
import { createBullmqBackend } from "./queue-bullmq.ts";
import { createMemoryBackend } from "./queue-memory.ts";
import { createWebhookReceiver } from "./receiver.ts";
import { createReconciler, DEFAULT_RECONCILER_OPTIONS } from "./reconciler.ts";
import { createRecoverySweep, DEFAULT_RECOVERY_OPTIONS } from "./recovery.ts";
import { createRequestNotices } from "./request-notices.ts";

export { QUEUE_NAMES } from "./keys.ts";
export type { EventsPipeline, EventsPipelineDeps } from "./pipeline-types.ts";
export { type DeadLetter, RetryLaterError } from "./queue.ts";
export type { DeliverMissing, RecoveredMessages } from "./recovery.ts";
export { ensureWebhookRegistered } from "./registration.ts";
export { signWebhookBody } from "./signature.ts";
export type { OpsAlert, PaymentLinkEvent } from "./types.ts";

import type { EventsPipeline, EventsPipelineDeps } from "./pipeline-types.ts";

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
  const outbox = deps.store.outbox;
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
    deduper: deps.store.webhookDedupe,
    ingest: queues.ingest,
    logger,
    metrics: deps.metrics,
  });

  const reconcilerOptions = { ...DEFAULT_RECONCILER_OPTIONS, ...deps.reconciler };
  const reconcileEveryMs = deps.reconcileEveryMs ?? 7_000;
  const reconciler = createReconciler({
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
      { name: "redis", check: () => deps.store.ping() },
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
