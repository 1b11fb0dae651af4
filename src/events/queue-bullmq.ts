import { type DefaultJobOptions, DelayedError, type Job, Queue, Worker, type WorkerOptions } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_NAMES, type QueueName } from "#src/store/index.js";
import { isRedisConnectionError } from "#src/store/redis-outage.js";
import {
  type DeadLetter,
  type JobProcessor,
  type JobQueue,
  newestFirst,
  parseDeadLetterId,
  type QueueBackend,
  type QueuedJob,
  RetryLaterError,
  type RetryOverrides,
  type RetryPolicy,
  retryPolicies,
  toDeadLetter,
  type WorkerSpec,
} from "./queue.ts";

/**
 * The production queue backend: three BullMQ queues in Redis. Jobs survive restarts, any number of bot processes
 * can run workers on them, and the failed set of each queue is the dead-letter list.
 */
interface BullmqBackendOptions {
  /** The app's client; BullMQ gets a duplicate() of it with the options it needs. */
  redis: Redis;
  /** Key prefix: keys live under `<prefix>:<queue>:*`. */
  prefix: string;
  retries?: Partial<Record<"ingest" | "deliveries", RetryOverrides>>;
  /** An error of BullMQ's connection or queues (the workers' go to WorkerSpec.onError); never "Redis is away". */
  onError?: (error: Error) => void;
}

/**
 * How fast the active job of a dead process comes back. BullMQ's stalled check (moveStalledJobsToWait, run by every
 * worker each `stalledInterval`, at most once per interval per queue thanks to its `stalled-check` key) marks every
 * active job, and on its next run moves back to wait the marked ones whose `<job>:lock` is gone; a live worker
 * renews its locks every lockDuration / 2 and unmarks them. So a job of a killed worker is back within about
 * lockDuration + 2 × stalledInterval (≈ 5 s here, usually less; BullMQ's defaults make that a minute). The cost is one small script
 * per queue per interval and one lock renewal per worker every 1.5 s; the risk is a live worker whose event loop is
 * blocked longer than lockDuration being taken for dead, so its job runs twice — every processor here is idempotent
 * (monotonic transitions, the outbox cursor under the order lock), and maxStalledCount 3 keeps such a job from
 * being failed for it.
 */
const STALLED_RECOVERY = { lockDuration: 3_000, stalledInterval: 1_000, maxStalledCount: 3 } as const;

/** Retention per queue: what stays in Redis after a job ends. */
const RETENTION: Record<"ingest" | "deliveries" | "reconcile", DefaultJobOptions> = {
  // Done is done: nothing reads a finished ingest job (repeats are refused by the dedupe key, not the job id),
  // its payload holds account numbers and phones, and dropping it saves Redis work on every event.
  ingest: { removeOnComplete: true, removeOnFail: false },
  deliveries: { removeOnComplete: { age: 3_600, count: 10_000 }, removeOnFail: false },
  reconcile: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
};

function jobOptions(key: keyof typeof RETENTION, policy: RetryPolicy): DefaultJobOptions {
  return {
    ...RETENTION[key],
    attempts: policy.attempts,
    ...(policy.backoffMs ? { backoff: { type: "exponential", delay: policy.backoffMs } } : {}),
  };
}

class BullmqJobQueue<T> implements JobQueue<T> {
  constructor(readonly queue: Queue) {}

  get name(): QueueName {
    return this.queue.name as QueueName;
  }

  async add(name: string, data: T, options: { jobId?: string; removeOnComplete?: boolean } = {}) {
    await this.queue.add(name, data, {
      ...(options.jobId ? { jobId: options.jobId } : {}),
      ...(options.removeOnComplete ? { removeOnComplete: true } : {}),
    });
  }
}

export function createBullmqBackend<I, D>(options: BullmqBackendOptions): QueueBackend<I, D> {
  const { prefix } = options;
  // BullMQ needs maxRetriesPerRequest: null and no ioredis keyPrefix (it has its own `prefix`), and never
  // auto-pipelining, even if the app's client has it (its maintainers advise against it: taskforcesh/bullmq#457,
  // #1127). A second connection just for webhook acks, and auto-pipelining the pipeline's own keys, were both
  // measured with the webhook bench: neither lowered ack latency, both cost CPU per event.
  const connection = options.redis.duplicate({
    maxRetriesPerRequest: null,
    keyPrefix: undefined,
    enableAutoPipelining: false,
  });
  const policies = retryPolicies(options.retries);
  const make = (name: QueueName, key: keyof typeof RETENTION) =>
    new Queue(name, { connection, prefix, defaultJobOptions: jobOptions(key, policies[key]) });
  const queues = {
    ingest: make(QUEUE_NAMES.ingest, "ingest"),
    deliveries: make(QUEUE_NAMES.deliveries, "deliveries"),
    reconcile: make(QUEUE_NAMES.reconcile, "reconcile"),
  };
  // The app's client logs an unreachable Redis once per retry interval (src/store/redis-outage.ts): this connection,
  // every queue and every worker would repeat each failed try. A queue with no listener prints to stderr.
  const report = (error: Error) => {
    if (!isRedisConnectionError(error)) options.onError?.(error);
  };
  connection.on("error", report);
  for (const queue of Object.values(queues)) queue.on("error", report);
  let workers: Worker[] = [];

  return {
    kind: "bullmq",
    ingest: new BullmqJobQueue<I>(queues.ingest),
    deliveries: new BullmqJobQueue<D>(queues.deliveries),

    async startWorkers(spec: WorkerSpec<I, D>) {
      workers = await startWorkers(queues, { connection, prefix, autorun: true, ...STALLED_RECOVERY }, spec);
    },

    async close(graceMs) {
      await closeWorkers(workers, graceMs);
      workers = [];
      await Promise.all(Object.values(queues).map((queue) => queue.close()));
      await connection.quit().catch(() => connection.disconnect());
    },

    listDeadLetters: (limit) => deadLettersOf([queues.ingest, queues.deliveries], limit),

    async replayDeadLetter(id) {
      const target = parseDeadLetterId(id);
      const queue = target && [queues.ingest, queues.deliveries].find((q) => q.name === target.queue);
      if (!target || !queue) return false;
      const job = await queue.getJob(target.jobId);
      if (!job || !(await job.isFailed())) return false;
      await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    },

    async counts() {
      const entries = await Promise.all(
        Object.values(queues).map(
          async (queue: Queue) =>
            [
              queue.name,
              await queue.getJobCounts("waiting", "active", "delayed", "failed", "prioritized"),
            ] as const,
        ),
      );
      return Object.fromEntries(entries);
    },

    ping: () => queues.ingest.getJobCounts("waiting"),
  };
}

function view<T>(job: Job<T>): QueuedJob<T> {
  return { id: String(job.id), name: job.name, data: job.data, attemptsMade: job.attemptsMade };
}

/** Our processors see a QueuedJob; RetryLaterError becomes BullMQ's move-to-delayed (no attempt counted). */
function adapt<T>(processor: JobProcessor<T>) {
  return async (job: Job<T>, token?: string) => {
    try {
      return await processor(view(job));
    } catch (error) {
      if (!(error instanceof RetryLaterError)) throw error;
      await job.moveToDelayed(Date.now() + error.delayMs, token);
      throw new DelayedError();
    }
  };
}

type Queues = Record<"ingest" | "deliveries" | "reconcile", Queue>;

async function startWorkers<I, D>(
  queues: Queues,
  common: WorkerOptions,
  spec: WorkerSpec<I, D>,
): Promise<Worker[]> {
  // One event at a time across every process: each order's events are applied in arrival order.
  await queues.ingest.setGlobalConcurrency(1);
  await queues.reconcile.setGlobalConcurrency(1);
  await queues.reconcile.upsertJobScheduler(
    "reconcile-tick",
    { every: spec.reconcileEveryMs },
    { name: "tick", opts: { removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } } },
  );
  const workers = [
    new Worker(queues.ingest.name, adapt(spec.ingest), { ...common, concurrency: 1 }),
    new Worker(queues.deliveries.name, adapt(spec.deliveries), {
      ...common,
      concurrency: spec.deliveryConcurrency,
    }),
    new Worker(queues.reconcile.name, () => spec.reconcileTick(), { ...common, concurrency: 1 }),
  ];
  for (const worker of workers) {
    const name = worker.name as QueueName;
    worker.on("failed", (job: Job | undefined, error: Error) => {
      if (job) spec.onFailed(name, view(job), error, job.attemptsMade >= (job.opts.attempts ?? 1));
    });
    worker.on("error", (error) => {
      if (!isRedisConnectionError(error)) spec.onError(name, error);
    });
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  return workers;
}

/** Each worker finishes its job within `graceMs`; one still running after it is left to another process. */
async function closeWorkers(workers: Worker[], graceMs: number): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), graceMs);
      });
      const result = await Promise.race([worker.close(), forced]);
      clearTimeout(timer);
      // A job still running after the grace period is left to the stalled-job check of another process.
      if (result === "timeout") await worker.close(true);
    }),
  );
}

async function deadLettersOf(queues: Queue[], limit: number): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  for (const queue of queues) {
    const jobs = await queue.getFailed(0, limit - 1);
    for (const job of jobs) {
      if (!job) continue;
      const { name, data, attemptsMade, failedReason, finishedOn } = job;
      const id = String(job.id);
      letters.push(
        toDeadLetter(queue.name as QueueName, { id, name, data, attemptsMade, failedReason, finishedOn }),
      );
    }
  }
  return newestFirst(letters, limit);
}
