import type { Logger } from "#src/log/logger.js";
import type { ProcessRegistry } from "#src/store/index.js";
import type { IngestJobData } from "./ingest.ts";
import type { EventsPipelineDeps } from "./pipeline-types.ts";
import type { QueueBackend } from "./queue.ts";
import type { createReconciler } from "./reconciler.ts";
import type { createStages } from "./stages.ts";
import type { createSweeps } from "./sweeps.ts";
import type { DeliveryJobData } from "./types.ts";

/** How often a worker looks for overdue deliveries. */
const DUE_SWEEP_EVERY_MS = 1_000;

interface LifecycleContext {
  deps: EventsPipelineDeps;
  queues: QueueBackend<IngestJobData, DeliveryJobData>;
  logger: Logger;
  prefix: string;
  processes: ProcessRegistry;
  /** The registry is this pipeline's own (started and stopped with it). */
  ownsRegistry: boolean;
  stages: ReturnType<typeof createStages>;
  sweeps: ReturnType<typeof createSweeps>;
  reconciler: ReturnType<typeof createReconciler>;
  reconcileEveryMs: number;
  reconcileStepMs: number;
  /** Called last on stop (the metrics' queue source is let go). */
  onStopped?: (() => void) | undefined;
}

/** Starting the workers and sweeps (once), and stopping them in the order that loses no held work. */
export function createLifecycle(context: LifecycleContext) {
  const { deps, queues, logger, processes, stages, sweeps, reconciler } = context;
  let started = false;
  let stopped = false;
  let dueSweep: NodeJS.Timeout | undefined;

  async function reconcileTick() {
    const outcome = await reconciler.tick(context.reconcileEveryMs - context.reconcileStepMs);
    await sweeps.sweep();
    await deps
      .afterTick?.()
      .catch((error: unknown) =>
        logger.warn({ err: error }, "after-tick work failed; the next tick tries again"),
      );
    return outcome;
  }

  async function start(): Promise<void> {
    if (started) return;
    if (stopped) throw new Error("events pipeline was stopped; create a new one");
    started = true;
    if (context.ownsRegistry) await processes.start();
    await queues.startWorkers({
      ingest: stages.ingest,
      deliveries: stages.deliver.process,
      reconcileTick,
      deliveryConcurrency: stages.deliveryConcurrency,
      reconcileEveryMs: context.reconcileEveryMs,
      onFailed: sweeps.onFailed,
      onError: (queue, error) => logger.error({ err: error, queue }, "worker error"),
    });
    dueSweep = setInterval(() => void sweeps.queueOverdue(), DUE_SWEEP_EVERY_MS);
    dueSweep.unref();
    logger.info({ backend: queues.kind, prefix: context.prefix }, "events pipeline started");
    // Orders a previous process confirmed but died before delivering: at once, not at the first tick.
    void sweeps.sweep();
  }

  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    reconciler.stop();
    clearInterval(dueSweep);
    await stages.inline.idle();
    await queues.close(deps.stopGraceMs ?? 10_000);
    // After the workers: a lock still held until now must not look abandoned while its job finishes.
    if (context.ownsRegistry && started) await processes.stop().catch(() => undefined);
    context.onStopped?.();
    logger.info("events pipeline stopped");
  }

  return { start, stop };
}
