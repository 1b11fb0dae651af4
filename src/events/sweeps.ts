import type { Logger } from "#src/log/logger.js";
import { QUEUE_NAMES } from "#src/store/index.js";
import type { IngestJobData } from "./ingest.ts";
import type { EventsPipelineDeps } from "./pipeline-types.ts";
import { jobIdPart, type QueueBackend } from "./queue.ts";
import { createRecoverySweep, DEFAULT_RECOVERY_OPTIONS } from "./recovery.ts";
import type { DeliveryJobData } from "./types.ts";

/** How long an overdue delivery the sweep queued is left to that job before the sweep looks at it again. */
const DUE_LEASE_MS = 60_000;

interface SweepContext {
  deps: EventsPipelineDeps;
  queues: QueueBackend<IngestJobData, DeliveryJobData>;
  logger: Logger;
  now: () => number;
}

/**
 * The pipeline's safety nets besides the queues' own retries: the recovery sweep and the retention drop (every
 * reconciler tick), overdue deliveries handed to the queue (every second), and an alert for a dead letter.
 */
export function createSweeps({ deps, queues, logger, now }: SweepContext) {
  const outbox = deps.store.outbox;
  const deliver = deps.deliverMissing;
  const recovery = deliver
    ? createRecoverySweep({
        store: deps.store,
        deliver,
        logger,
        now,
        options: { ...DEFAULT_RECOVERY_OPTIONS, ...deps.recovery },
      })
    : undefined;

  async function sweep(): Promise<void> {
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
  }

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

  return { sweep, queueOverdue, onFailed };
}
