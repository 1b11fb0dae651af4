import { parseWebhookEvent } from "#src/api/index.js";
import { createOrderMessages } from "#src/orders/messages.js";
import { ProcessRegistry, QUEUE_NAMES } from "#src/store/index.js";
import { createDeliveryProcessor, type DeliveryJobData } from "./delivery.ts";
import {
  createIngestProcessor,
  type IngestJobData,
  markedBy,
  NeedsQueueError,
  webhookEventRefs,
} from "./ingest.ts";
import { createInlineDeliveries } from "./inline-deliveries.ts";
import { Notifier } from "./notifier.ts";
import { jobIdPart, type QueueBackend } from "./queue.ts";
import { createBullmqBackend } from "./queue-bullmq.ts";
import { createMemoryBackend } from "./queue-memory.ts";
import { createWebhookReceiver } from "./receiver.ts";
import { createReconciler, DEFAULT_RECONCILER_OPTIONS } from "./reconciler.ts";
import { createRecoverySweep, DEFAULT_RECOVERY_OPTIONS } from "./recovery.ts";
import { createRequestNotices } from "./request-notices.ts";
import { setsSendingMark } from "./sending-mark.ts";

export type { EventsPipeline, EventsPipelineDeps } from "./pipeline-types.ts";
export { type DeadLetter, RetryLaterError } from "./queue.ts";
export type { DeliverMissing, RecoveredMessages } from "./recovery.ts";
export { ensureWebhookRegistered } from "./registration.ts";
export { setSendingMark } from "./sending-mark.ts";
export { signWebhookBody } from "./signature.ts";
export type { OpsAlert, PaymentLinkEvent } from "./types.ts";

import type { EventsPipeline, EventsPipelineDeps } from "./pipeline-types.ts";

/** How often a worker looks for overdue deliveries, and how long one it queued is left to that job. */
const DUE_SWEEP_EVERY_MS = 1_000;
const DUE_LEASE_MS = 60_000;

export function createEventsPipeline(deps: EventsPipelineDeps): EventsPipeline {
  // Without it a notification would go out with no sending mark, and a crash right after would send it twice.
  if (!setsSendingMark(deps.telegram.config.installedTransformers()))
    throw new Error("the events pipeline's Telegram Api needs setSendingMark installed innermost");
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
          onError: (error) => logger.warn({ err: error }, "queue error"),
        });
  const outbox = deps.store.outbox;
  const ownsRegistry = !deps.processes;
  const processes = deps.processes ?? new ProcessRegistry(deps.redis);
  const unregisterQueueSource = deps.metrics?.setQueueSource(() => queues.counts());

  const reconcilerOptions = { ...DEFAULT_RECONCILER_OPTIONS, ...deps.reconciler };
  // The processors exist from the start: a web process (which never starts the queue workers) records and delivers
  // the events it receives itself.
  const messages = createOrderMessages({
    telegram: deps.telegram,
    store: deps.store,
    now,
    logger,
    metrics: deps.metrics,
  });
  const notifier = new Notifier({ telegram: deps.telegram, messages, logger, metrics: deps.metrics });
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
    now,
    messages,
  });
  const deliveryConcurrency = deps.deliveryConcurrency ?? 16;
  const inline = createInlineDeliveries({
    deliver,
    deliveries: queues.deliveries,
    outbox,
    logger,
    concurrency: deliveryConcurrency,
  });
  const ingest = createIngestProcessor({
    store: deps.store,
    outbox,
    deliveries: queues.deliveries,
    inline,
    api: deps.api,
    logger,
    now,
    followUpMs: deps.followUpMs ?? 60_000,
    onchainPollMs: reconcilerOptions.onchainPollMs,
    paymentLinkHook: !!deps.onPaymentLinkEvent,
  });

  const webhookHandler = createWebhookReceiver({
    secret: deps.webhookSecret,
    previousSecret: deps.previousWebhookSecret,
    allowUnsigned: deps.allowUnsigned ?? false,
    parseEvent: (json) => {
      const parsed = parseWebhookEvent(json);
      return parsed.ok ? { event: parsed.event.event, refs: webhookEventRefs(parsed.event) } : undefined;
    },
    deduper: deps.store.webhookDedupe,
    processes,
    accept: async (event, jobId, known, mark) => {
      try {
        const outcome = await ingest(
          { id: jobId ?? "inline", name: "webhook", data: event, attemptsMade: 0 },
          { inline: true, ...(known ? { known } : {}), ...(mark ? { mark } : {}) },
        );
        return mark !== undefined && markedBy(outcome);
      } catch (error) {
        // The queue retries what could not be applied here (a Redis hiccup, an order only the API can name).
        if (!(error instanceof NeedsQueueError))
          logger.warn({ err: error }, "event not applied on receipt; queued for the ingest worker");
        await queues.ingest.add("webhook", event, jobId ? { jobId } : {});
        return false;
      }
    },
    logger,
    metrics: deps.metrics,
  });

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
    try {
      // Orders that ended unpaid leave Redis, index entries and all, once their retention is over.
      const dropped = await deps.store.orders.dropRetired(Date.now());
      if (dropped > 0) logger.debug({ dropped }, "unpaid orders past their retention dropped");
    } catch (error) {
      logger.warn({ err: error }, "unpaid orders not dropped; the next tick tries again");
    }
  };

  let started = false;
  let stopped = false;
  let dueSweep: NodeJS.Timeout | undefined;

  /**
   * Orders whose delivery is overdue (the process delivering them died): the delivery queue takes them, then they are
   * pushed out of the way for a while. The job id (order and due time) makes racing sweeps, or a sweep repeated after
   * a crash between the two steps, add one job. The due set runs on this machine's clock, not the API's (a test's
   * moved API clock must not make deliveries overdue).
   */
  async function queueOverdue(): Promise<void> {
    try {
      const due = await outbox.overdue(Date.now(), 100);
      for (const { orderId, dueAt } of due) {
        logger.info({ orderId }, "overdue delivery queued");
        await queues.deliveries.add(
          "order",
          { kind: "order", orderId },
          { jobId: `due-${jobIdPart(orderId)}-${dueAt}`, removeOnComplete: true },
        );
      }
      const until = Date.now() + DUE_LEASE_MS;
      await Promise.all(due.map(({ orderId }) => outbox.deferDue(orderId, until)));
    } catch (error) {
      logger.warn({ err: error }, "overdue deliveries not queued; the next sweep tries again");
    }
  }

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
      await queues.startWorkers({
        ingest,
        deliveries: deliver.process,
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
        deliveryConcurrency,
        reconcileEveryMs,
        onFailed,
        onError: (queue, error) => logger.error({ err: error, queue }, "worker error"),
      });
      dueSweep = setInterval(() => void queueOverdue(), DUE_SWEEP_EVERY_MS);
      dueSweep.unref();
      logger.info({ backend: queues.kind, prefix }, "events pipeline started");
      // Orders a previous process confirmed but died before delivering: at once, not at the first tick.
      void sweep();
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      reconciler.stop();
      clearInterval(dueSweep);
      await inline.idle();
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
