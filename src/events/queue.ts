import { QUEUE_NAMES, type QueueName } from "#src/store/index.js";

/**
 * The job queues of the events pipeline, as the pipeline sees them. Two backends implement this port:
 *
 *   queue-bullmq.ts   BullMQ on Redis: jobs survive restarts, any number of processes run workers (production)
 *   queue-memory.ts   in-process: the local-mode fallback when there is no Redis at all (nothing survives exit)
 *
 * Both give the same semantics to the processors: failed attempts are retried with exponential backoff, a job that
 * exhausts its attempts stays in the failed set (the dead-letter list ops can read and replay), a job id given to
 * `add` is added once, ingest runs one job at a time, and `RetryLaterError` postpones a job without counting an
 * attempt.
 *
 *   payout-events      webhook events and reconciler findings → order transitions (one at a time, in order)
 *   payout-deliveries  Telegram work per order (card edits, notifications), alerts, merchant hooks
 *   payout-reconcile   the repeatable reconciler tick
 */
export interface QueuedJob<T> {
  readonly id: string;
  readonly name: string;
  readonly data: T;
  /** Attempts that have failed so far (0 on the first run). */
  readonly attemptsMade: number;
}

export interface AddOptions {
  /** A job with this id is added once (while the queue still holds it). */
  jobId?: string;
  /** Drop the job as soon as it succeeds (default: keep per the queue's retention). */
  removeOnComplete?: boolean;
}

export interface JobQueue<T> {
  readonly name: QueueName;
  add(name: string, data: T, options?: AddOptions): Promise<void>;
}

export type JobProcessor<T> = (job: QueuedJob<T>) => Promise<unknown>;

/** A value as a piece of a job id (BullMQ ids: letters, digits, `_` and `-` are safe everywhere). */
export function jobIdPart(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** Thrown by a processor to run the job again after `delayMs`, not counted as a failed attempt. */
export class RetryLaterError extends Error {
  constructor(readonly delayMs: number) {
    super(`retry in ${delayMs} ms`);
    this.name = "RetryLaterError";
  }
}

export interface WorkerSpec<I, D> {
  ingest: JobProcessor<I>;
  deliveries: JobProcessor<D>;
  reconcileTick: () => Promise<unknown>;
  deliveryConcurrency: number;
  reconcileEveryMs: number;
  /** Every failed attempt (not RetryLaterError); `exhausted` when it was the last one. */
  onFailed: (queue: QueueName, job: QueuedJob<unknown>, error: Error, exhausted: boolean) => void;
  onError: (queue: QueueName, error: Error) => void;
}

export interface QueueBackend<I, D> {
  readonly kind: "bullmq" | "memory";
  ingest: JobQueue<I>;
  deliveries: JobQueue<D>;
  startWorkers(spec: WorkerSpec<I, D>): Promise<void>;
  /** Stop taking jobs, give those in flight `graceMs` to finish, then release everything. */
  close(graceMs: number): Promise<void>;
  /** Jobs that exhausted their retries, newest first (the reconciler's own ticks are not listed). */
  listDeadLetters(limit: number): Promise<DeadLetter[]>;
  /** Put a dead letter back for a fresh round of attempts. False if no such failed job exists. */
  replayDeadLetter(id: string): Promise<boolean>;
  /** Job counts per queue and state, for the metrics gauges and ops' /health. */
  counts(): Promise<Record<string, Record<string, number>>>;
  /** Reachability for /readyz. */
  ping(): Promise<unknown>;
}

export interface RetryPolicy {
  attempts: number;
  /** First backoff delay; doubles per attempt (absent: retried at once). */
  backoffMs?: number;
}

/** Per-queue retry overrides (tests shorten them; production keeps the defaults). */
export interface RetryOverrides {
  attempts?: number;
  /** First backoff delay; doubles per attempt. */
  backoffMs?: number;
}

type RetryPolicies = Record<"ingest" | "deliveries" | "reconcile", RetryPolicy>;

const DEFAULT_RETRIES: RetryPolicies = {
  ingest: { attempts: 8, backoffMs: 1_000 },
  deliveries: { attempts: 10, backoffMs: 2_000 },
  reconcile: { attempts: 1 },
};

export function retryPolicies(overrides: Partial<Record<"ingest" | "deliveries", RetryOverrides>> = {}) {
  const merge = (key: "ingest" | "deliveries"): RetryPolicy => ({
    attempts: overrides[key]?.attempts || DEFAULT_RETRIES[key].attempts,
    backoffMs: overrides[key]?.backoffMs || DEFAULT_RETRIES[key].backoffMs,
  });
  return { ingest: merge("ingest"), deliveries: merge("deliveries"), reconcile: DEFAULT_RETRIES.reconcile };
}

/** Delay before attempt `attemptsMade + 1` (BullMQ's exponential backoff: delay · 2^(attempts−1)). */
export function backoffDelay(policy: RetryPolicy, attemptsMade: number): number {
  return policy.backoffMs ? policy.backoffMs * 2 ** Math.max(0, attemptsMade - 1) : 0;
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

/** Short aliases keep dead-letter ids small enough for ops buttons' callback data (≤ 64 bytes). */
const ALIASES: Record<QueueName, string> = {
  [QUEUE_NAMES.ingest]: "i",
  [QUEUE_NAMES.deliveries]: "d",
  [QUEUE_NAMES.reconcile]: "r",
};

function deadLetterId(queue: QueueName, jobId: string): string {
  return `${ALIASES[queue]}:${jobId}`;
}

/** The queue and job id of a dead-letter id, or undefined when it is not one of ours. */
export function parseDeadLetterId(id: string): { queue: QueueName; jobId: string } | undefined {
  const separator = id.indexOf(":");
  const alias = id.slice(0, separator);
  const jobId = id.slice(separator + 1);
  const queue = [QUEUE_NAMES.ingest, QUEUE_NAMES.deliveries].find((name) => ALIASES[name] === alias);
  return queue && separator >= 1 && jobId ? { queue, jobId } : undefined;
}

/** The dead-letter view of a failed job, whichever backend holds it. */
export function toDeadLetter(
  queue: QueueName,
  job: {
    id: string;
    name: string;
    data: unknown;
    attemptsMade: number;
    failedReason?: string;
    finishedOn?: number;
  },
): DeadLetter {
  return {
    id: deadLetterId(queue, job.id),
    queue,
    jobId: job.id,
    name: job.name,
    reason: job.failedReason ?? "",
    attempts: job.attemptsMade,
    ...(job.finishedOn ? { failedAt: new Date(job.finishedOn).toISOString() } : {}),
    summary: summarizeJobData(job.data),
  };
}

/** A PII-free summary of a job's data (event name, order id) for dead-letter listings. */
function summarizeJobData(data: unknown): Record<string, string> {
  const fields = (data ?? {}) as Record<string, unknown>;
  const summary: Record<string, string> = {};
  for (const key of ["kind", "orderId", "event", "source"]) {
    const value = fields[key];
    if (typeof value === "string") summary[key] = value;
  }
  const envelope = fields.envelope as { event?: unknown } | undefined;
  if (typeof envelope?.event === "string") summary.event = envelope.event;
  return summary;
}

export function newestFirst(letters: DeadLetter[], limit: number): DeadLetter[] {
  return letters.sort((a, b) => (b.failedAt ?? "").localeCompare(a.failedAt ?? "")).slice(0, limit);
}
