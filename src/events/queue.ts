import { type DefaultJobOptions, type Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_NAMES, type QueueName } from "./keys.ts";

/**
 * The three BullMQ queues of the events pipeline. Jobs survive restarts (they live in Redis), any number of bot
 * processes can run workers on them, failed attempts are retried with exponential backoff, and a job that
 * exhausts its attempts stays in the queue's failed set: that set is the dead-letter list ops can read and replay.
 *
 *   payout-events      webhook events and reconciler findings → order transitions (one at a time, in order)
 *   payout-deliveries  Telegram work per order (card edits, notifications), alerts, merchant hooks
 *   payout-reconcile   the repeatable reconciler tick
 */
export interface QueueSet {
  ingest: Queue;
  deliveries: Queue;
  reconcile: Queue;
}

/** Short aliases keep dead-letter ids small enough for ops buttons' callback data (≤ 64 bytes). */
const ALIASES: Record<QueueName, string> = {
  [QUEUE_NAMES.ingest]: "i",
  [QUEUE_NAMES.deliveries]: "d",
  [QUEUE_NAMES.reconcile]: "r",
};

export const JOB_OPTIONS: Record<keyof QueueSet, DefaultJobOptions> = {
  ingest: {
    attempts: 8,
    backoff: { type: "exponential", delay: 1_000 },
    // Done is done: nothing reads a finished ingest job (repeats are refused by the dedupe key, not the job id),
    // its payload holds account numbers and phones, and dropping it saves Redis work on every event.
    removeOnComplete: true,
    removeOnFail: false,
  },
  deliveries: {
    attempts: 10,
    backoff: { type: "exponential", delay: 2_000 },
    removeOnComplete: { age: 3_600, count: 10_000 },
    removeOnFail: false,
  },
  reconcile: {
    attempts: 1,
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
};

/** Per-queue retry overrides (tests shorten them; production keeps the defaults above). */
export interface RetryOverrides {
  attempts?: number;
  /** First backoff delay; doubles per attempt. */
  backoffMs?: number;
}

export function createQueues(
  connection: Redis,
  prefix: string,
  overrides: Partial<Record<"ingest" | "deliveries", RetryOverrides>> = {},
): QueueSet {
  const make = (name: QueueName, key: keyof QueueSet) => {
    const base = JOB_OPTIONS[key];
    const override = key === "reconcile" ? undefined : overrides[key];
    const defaultJobOptions: DefaultJobOptions = {
      ...base,
      ...(override?.attempts ? { attempts: override.attempts } : {}),
      ...(override?.backoffMs ? { backoff: { type: "exponential", delay: override.backoffMs } } : {}),
    };
    return new Queue(name, { connection, prefix, defaultJobOptions });
  };
  return {
    ingest: make(QUEUE_NAMES.ingest, "ingest"),
    deliveries: make(QUEUE_NAMES.deliveries, "deliveries"),
    reconcile: make(QUEUE_NAMES.reconcile, "reconcile"),
  };
}

export interface DeadLetter {
  /** "<queue alias>:<job id>", what replayDeadLetter takes. */
  id: string;
  queue: QueueName;
  jobId: string;
  name: string;
  reason: string;
  attempts: number;
  failedAt?: string;
  /** A PII-free summary of what the job was about (event name, order id). */
  summary: Record<string, string>;
}

function summarize(job: Job): Record<string, string> {
  const data = (job.data ?? {}) as Record<string, unknown>;
  const summary: Record<string, string> = {};
  for (const key of ["kind", "orderId", "event", "source"]) {
    const value = data[key];
    if (typeof value === "string") summary[key] = value;
  }
  const envelope = data.envelope as { event?: unknown } | undefined;
  if (typeof envelope?.event === "string") summary.event = envelope.event;
  return summary;
}

function toDeadLetter(queue: Queue, job: Job): DeadLetter {
  const name = queue.name as QueueName;
  return {
    id: `${ALIASES[name]}:${job.id}`,
    queue: name,
    jobId: String(job.id),
    name: job.name,
    reason: job.failedReason ?? "",
    attempts: job.attemptsMade,
    ...(job.finishedOn ? { failedAt: new Date(job.finishedOn).toISOString() } : {}),
    summary: summarize(job),
  };
}

/** Jobs that exhausted their retries, newest first (the reconciler's own ticks are not listed). */
export async function listDeadLetters(queues: QueueSet, limit = 50): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  for (const queue of [queues.ingest, queues.deliveries]) {
    const jobs = await queue.getFailed(0, limit - 1);
    for (const job of jobs) if (job) letters.push(toDeadLetter(queue, job));
  }
  return letters.sort((a, b) => (b.failedAt ?? "").localeCompare(a.failedAt ?? "")).slice(0, limit);
}

/** Put a dead letter back in its queue for a fresh round of attempts. False if no such failed job exists. */
export async function replayDeadLetter(queues: QueueSet, id: string): Promise<boolean> {
  const separator = id.indexOf(":");
  const alias = id.slice(0, separator);
  const jobId = id.slice(separator + 1);
  const queue = [queues.ingest, queues.deliveries].find(
    (candidate) => ALIASES[candidate.name as QueueName] === alias,
  );
  if (!queue || separator < 1 || !jobId) return false;
  const job = await queue.getJob(jobId);
  if (!job || !(await job.isFailed())) return false;
  await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
  return true;
}

/** Job counts per queue and state, for the metrics gauges and ops' /health. */
export async function queueCounts(queues: QueueSet): Promise<Record<string, Record<string, number>>> {
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
}
