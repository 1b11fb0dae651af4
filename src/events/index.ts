import type { Logger } from "#src/log/logger.js";
import { ProcessRegistry } from "#src/store/index.js";
import type { IngestJobData } from "./ingest.ts";
import { createLifecycle } from "./lifecycle.ts";
import type { QueueBackend } from "./queue.ts";
import { createBullmqBackend } from "./queue-bullmq.ts";
import { createMemoryBackend } from "./queue-memory.ts";
import { createReconciler, DEFAULT_RECONCILER_OPTIONS } from "./reconciler.ts";
import { setsSendingMark } from "./sending-mark.ts";
import { createStages } from "./stages.ts";
import { createSweeps } from "./sweeps.ts";
import type { DeliveryJobData } from "./types.ts";

export type { EventsPipeline, EventsPipelineDeps } from "./pipeline-types.ts";
export { type DeadLetter, RetryLaterError } from "./queue.ts";
export type { DeliverMissing, RecoveredMessages } from "./recovery.ts";
export { ensureWebhookRegistered } from "./registration.ts";
export { setSendingMark } from "./sending-mark.ts";
export { signWebhookBody } from "./signature.ts";
export type { OpsAlert, PaymentLinkEvent } from "./types.ts";

import type { EventsPipeline, EventsPipelineDeps } from "./pipeline-types.ts";

export function createEventsPipeline(deps: EventsPipelineDeps): EventsPipeline {
  // Without it a notification would go out with no sending mark, and a crash right after would send it twice.
  if (!setsSendingMark(deps.telegram.config.installedTransformers()))
    throw new Error("the events pipeline's Telegram Api needs setSendingMark installed innermost");
  const logger = deps.logger.child({ module: "events" });
  const now = deps.now ?? Date.now;
  const prefix = deps.queuePrefix ?? "bull";
  const queues = createQueues(deps, prefix, logger);
  const processes = deps.processes ?? new ProcessRegistry(deps.redis);
  const unregisterQueueSource = deps.metrics?.setQueueSource(() => queues.counts());
  const reconcilerOptions = { ...DEFAULT_RECONCILER_OPTIONS, ...deps.reconciler };
  const { onchainPollMs } = reconcilerOptions;
  const stages = createStages({ deps, queues, processes, logger, now, onchainPollMs });
  const reconcileEveryMs = deps.reconcileEveryMs ?? 7_000;
  const reconciler = createReconciler({
    store: deps.store,
    api: deps.api,
    ingest: queues.ingest,
    logger,
    now,
    options: reconcilerOptions,
  });
  const lifecycle = createLifecycle({
    deps,
    queues,
    logger,
    prefix,
    processes,
    ownsRegistry: !deps.processes,
    stages,
    sweeps: createSweeps({ deps, queues, logger, now }),
    reconciler,
    reconcileEveryMs,
    reconcileStepMs: reconcilerOptions.stepMs,
    onStopped: unregisterQueueSource,
  });

  return {
    queueBackend: queues.kind,
    webhookHandler: stages.receive,
    readiness: [
      { name: "redis", check: () => deps.store.ping() },
      { name: "queue", check: () => queues.ping() },
    ],
    start: lifecycle.start,
    stop: lifecycle.stop,
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

/** The job queues: BullMQ on Redis, or in this process (local mode, tests). */
function createQueues(
  deps: EventsPipelineDeps,
  prefix: string,
  logger: Logger,
): QueueBackend<IngestJobData, DeliveryJobData> {
  if (deps.queueBackend === "memory") return createMemoryBackend({ retries: deps.retries });
  return createBullmqBackend({
    redis: deps.redis,
    prefix,
    retries: deps.retries,
    onError: (error) => logger.warn({ err: error }, "queue error"),
  });
}
