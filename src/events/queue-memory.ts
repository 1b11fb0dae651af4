import { QUEUE_NAMES, type QueueName } from "#src/store/index.js";
import {
  type AddOptions,
  backoffDelay,
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
 * The in-process queue backend, for local mode when there is no Redis server at all (the store then runs on an
 * in-memory Redis stand-in that cannot run BullMQ's scripts). Same semantics as the BullMQ backend inside one
 * process — retries with exponential backoff, dead letters with replay, add-once job ids, ingest one at a time,
 * RetryLaterError — but nothing survives the process: it is a way to try the bot, never to run it for real.
 */
interface MemoryBackendOptions {
  retries?: Partial<Record<"ingest" | "deliveries", RetryOverrides>>;
}

type State = "waiting" | "active" | "delayed" | "completed" | "failed";

interface MemoryJob<T> {
  id: string;
  name: string;
  data: T;
  attemptsMade: number;
  state: State;
  removeOnComplete: boolean;
  failedReason?: string;
  finishedOn?: number;
}

/** What a finished job leaves behind, like the BullMQ backend's retention (count, then age). */
interface Retention {
  count: number;
  ageMs?: number;
}

class MemoryJobQueue<T> implements JobQueue<T> {
  private readonly jobs = new Map<string, MemoryJob<T>>();
  private readonly waiting: MemoryJob<T>[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idleWaiters: Array<() => void> = [];
  private completed: MemoryJob<T>[] = [];
  private processor?: JobProcessor<T>;
  private concurrency = 1;
  private active = 0;
  private running = false;
  private sequence = 0;
  onFailed?: (job: QueuedJob<T>, error: Error, exhausted: boolean) => void;

  constructor(
    readonly name: QueueName,
    private readonly policy: RetryPolicy,
    private readonly retention: Retention,
  ) {}

  async add(name: string, data: T, options: AddOptions = {}): Promise<void> {
    if (options.jobId && this.jobs.has(options.jobId)) return;
    this.sequence += 1;
    const job: MemoryJob<T> = {
      id: options.jobId ?? String(this.sequence),
      name,
      // A copy, as a queue in Redis would hold: later changes by the caller must not reach the job.
      data: structuredClone(data),
      attemptsMade: 0,
      state: "waiting",
      removeOnComplete: options.removeOnComplete ?? this.retention.count === 0,
    };
    this.jobs.set(job.id, job);
    this.enqueue(job);
  }

  start(processor: JobProcessor<T>, concurrency: number): void {
    this.processor = processor;
    this.concurrency = concurrency;
    this.running = true;
    this.pump();
  }

  /** Stop taking jobs; resolves when those in flight have finished or `graceMs` has passed. */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.active === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }

  failed(): MemoryJob<T>[] {
    return [...this.jobs.values()].filter((job) => job.state === "failed");
  }

  replay(jobId: string): boolean {
    const job = this.jobs.get(jobId);
    if (job?.state !== "failed") return false;
    job.attemptsMade = 0;
    delete job.failedReason;
    delete job.finishedOn;
    this.enqueue(job);
    return true;
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = { waiting: 0, active: 0, delayed: 0, failed: 0, prioritized: 0 };
    for (const job of this.jobs.values())
      if (job.state in counts) counts[job.state] = (counts[job.state] ?? 0) + 1;
    return counts;
  }

  private enqueue(job: MemoryJob<T>, delayMs = 0): void {
    if (delayMs <= 0) {
      job.state = "waiting";
      this.waiting.push(job);
      this.pump();
      return;
    }
    job.state = "delayed";
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(job);
    }, delayMs);
    this.timers.add(timer);
  }

  private pump(): void {
    while (this.running && this.processor && this.active < this.concurrency) {
      const job = this.waiting.shift();
      if (!job) return;
      this.active += 1;
      job.state = "active";
      void this.run(job, this.processor);
    }
  }

  private async run(job: MemoryJob<T>, processor: JobProcessor<T>): Promise<void> {
    try {
      await processor({ id: job.id, name: job.name, data: job.data, attemptsMade: job.attemptsMade });
      this.complete(job);
    } catch (caught) {
      if (caught instanceof RetryLaterError) {
        this.requeue(job, caught.delayMs);
      } else {
        const error = caught instanceof Error ? caught : new Error(String(caught));
        job.attemptsMade += 1;
        const exhausted = job.attemptsMade >= this.policy.attempts;
        if (exhausted) {
          job.state = "failed";
          job.failedReason = error.message;
          job.finishedOn = Date.now();
        } else {
          this.requeue(job, backoffDelay(this.policy, job.attemptsMade));
        }
        this.onFailed?.({ ...job }, error, exhausted);
      }
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      this.pump();
    }
  }

  /** After a stop, a job that asked to run again stays waiting (like a job left in Redis). */
  private requeue(job: MemoryJob<T>, delayMs: number): void {
    if (this.running) this.enqueue(job, delayMs);
    else job.state = "waiting";
  }

  private complete(job: MemoryJob<T>): void {
    job.state = "completed";
    job.finishedOn = Date.now();
    if (job.removeOnComplete) {
      this.jobs.delete(job.id);
      return;
    }
    this.completed.push(job);
    const { count, ageMs } = this.retention;
    const oldest = ageMs === undefined ? 0 : job.finishedOn - ageMs;
    let drop = Math.max(0, this.completed.length - count);
    while (drop < this.completed.length && (this.completed[drop]?.finishedOn ?? 0) < oldest) drop += 1;
    for (const gone of this.completed.slice(0, drop)) this.jobs.delete(gone.id);
    this.completed = this.completed.slice(drop);
  }
}

export function createMemoryBackend<I, D>(options: MemoryBackendOptions = {}): QueueBackend<I, D> {
  const policies = retryPolicies(options.retries);
  const ingest = new MemoryJobQueue<I>(QUEUE_NAMES.ingest, policies.ingest, { count: 0 });
  const deliveries = new MemoryJobQueue<D>(QUEUE_NAMES.deliveries, policies.deliveries, {
    count: 10_000,
    ageMs: 3_600_000,
  });
  const reconcile = new MemoryTicker();

  return {
    kind: "memory",
    ingest,
    deliveries,

    async startWorkers(spec: WorkerSpec<I, D>) {
      ingest.onFailed = (job, error, exhausted) => spec.onFailed(ingest.name, job, error, exhausted);
      deliveries.onFailed = (job, error, exhausted) => spec.onFailed(deliveries.name, job, error, exhausted);
      ingest.start(spec.ingest, 1);
      deliveries.start(spec.deliveries, spec.deliveryConcurrency);
      reconcile.start(spec);
    },

    async close(graceMs) {
      await Promise.all([ingest.stop(graceMs), deliveries.stop(graceMs), reconcile.stop()]);
    },

    async listDeadLetters(limit) {
      const letters: DeadLetter[] = [];
      for (const queue of [ingest, deliveries] as MemoryJobQueue<unknown>[]) {
        for (const job of queue.failed()) {
          letters.push(toDeadLetter(queue.name, job));
        }
      }
      return newestFirst(letters, limit);
    },

    async replayDeadLetter(id) {
      const target = parseDeadLetterId(id);
      if (!target) return false;
      return (target.queue === ingest.name ? ingest : deliveries).replay(target.jobId);
    },

    async counts() {
      return {
        [ingest.name]: ingest.counts(),
        [deliveries.name]: deliveries.counts(),
        [QUEUE_NAMES.reconcile]: reconcile.counts(),
      };
    },

    ping: async () => "PONG",
  };
}

/** The reconcile ticks: one at a time, like the BullMQ scheduler with global concurrency 1 (a slow tick skips the next). */
class MemoryTicker {
  private failed = 0;
  private ticks = 0;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  start(spec: Pick<WorkerSpec<unknown, unknown>, "reconcileTick" | "reconcileEveryMs" | "onFailed">): void {
    this.timer = setInterval(() => {
      if (this.inFlight) return;
      this.ticks += 1;
      const id = `tick-${this.ticks}`;
      this.inFlight = spec
        .reconcileTick()
        .then(
          () => undefined,
          (error: unknown) => {
            this.failed = Math.min(this.failed + 1, 100);
            const failure = error instanceof Error ? error : new Error(String(error));
            spec.onFailed(
              QUEUE_NAMES.reconcile,
              { id, name: "tick", data: {}, attemptsMade: 1 },
              failure,
              true,
            );
          },
        )
        .finally(() => {
          this.inFlight = undefined;
        });
    }, spec.reconcileEveryMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
  }

  counts() {
    return { waiting: 0, active: this.inFlight ? 1 : 0, delayed: 0, failed: this.failed, prioritized: 0 };
  }
}
