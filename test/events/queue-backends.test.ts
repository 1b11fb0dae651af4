import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type QueueBackend,
  type QueuedJob,
  RetryLaterError,
  type RetryOverrides,
  type WorkerSpec,
} from "#src/events/queue.js";
import { createBullmqBackend } from "#src/events/queue-bullmq.js";
import { createMemoryBackend } from "#src/events/queue-memory.js";
import { QUEUE_NAMES } from "#src/store/index.js";
import { freshRedis } from "../support/redis.ts";

/**
 * The queue port's two backends must give the pipeline the same semantics: BullMQ on redis-server (production) and
 * the in-process queues of local mode's no-Redis fallback. Every case runs against both.
 */
interface Data {
  kind: string;
  orderId?: string;
  n?: number;
}
type Backend = QueueBackend<Data, Data>;
type Retries = Partial<Record<"ingest" | "deliveries", RetryOverrides>>;

let redis: Redis;
beforeAll(async () => {
  redis = await freshRedis();
});
afterAll(async () => {
  await redis.quit();
});

const makers: Array<[string, (retries: Retries) => Backend]> = [
  [
    "bullmq",
    (retries) => createBullmqBackend({ redis, prefix: `qb-${randomBytes(4).toString("hex")}`, retries }),
  ],
  ["memory", (retries) => createMemoryBackend({ retries })],
];

describe.each(makers)("queue backend: %s", (_name, make) => {
  let backend: Backend | undefined;
  afterEach(async () => {
    await backend?.close(2_000);
    backend = undefined;
  });

  interface Failure {
    queue: string;
    job: QueuedJob<unknown>;
    error: Error;
    exhausted: boolean;
  }

  async function start(spec: Partial<WorkerSpec<Data, Data>>, retries: Retries = {}) {
    backend = make(retries);
    const failures: Failure[] = [];
    await backend.startWorkers({
      ingest: async () => undefined,
      deliveries: async () => undefined,
      reconcileTick: async () => undefined,
      deliveryConcurrency: 4,
      reconcileEveryMs: 60_000,
      onFailed: (queue, job, error, exhausted) => failures.push({ queue, job, error, exhausted }),
      onError: () => undefined,
      ...spec,
    });
    return { backend, failures };
  }

  // Deliveries keep finished jobs a while (alerts rely on it: one alert per id even after it was sent).
  it("runs queued jobs with their name and data, once per job id", async () => {
    const seen: QueuedJob<Data>[] = [];
    const { backend } = await start({
      deliveries: async (job) => {
        seen.push(job);
      },
    });
    const data = { kind: "webhook", orderId: "o-1" };
    await backend.deliveries.add("alert", data, { jobId: "alert-1" });
    await backend.deliveries.add("alert", data, { jobId: "alert-1" });
    data.orderId = "changed after add";
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 5_000 });
    await backend.deliveries.add("alert", data, { jobId: "alert-1" });
    await backend.deliveries.add("alert", { kind: "alert", orderId: "o-2" });
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 5_000 });
    expect(seen.map((job) => [job.name, job.data.orderId, job.attemptsMade])).toEqual([
      ["alert", "o-1", 0],
      ["alert", "o-2", 0],
    ]);
    expect(seen[0]?.id).toBe("alert-1");
  });

  it("retries with backoff, keeps the exhausted job as a dead letter, and replays it", async () => {
    let fail = true;
    const attempts: number[] = [];
    const { backend, failures } = await start(
      {
        deliveries: async (job) => {
          attempts.push(job.attemptsMade);
          if (fail) throw new Error("telegram down");
        },
      },
      { deliveries: { attempts: 3, backoffMs: 20 } },
    );
    await backend.deliveries.add("order", { kind: "order", orderId: "o-dead" });
    await vi.waitFor(() => expect(failures.some((failure) => failure.exhausted)).toBe(true), {
      timeout: 5_000,
    });
    expect(attempts).toEqual([0, 1, 2]);
    expect(failures.map((failure) => [failure.queue, failure.exhausted, failure.error.message])).toEqual([
      [QUEUE_NAMES.deliveries, false, "telegram down"],
      [QUEUE_NAMES.deliveries, false, "telegram down"],
      [QUEUE_NAMES.deliveries, true, "telegram down"],
    ]);

    const [letter, ...others] = await backend.listDeadLetters(10);
    expect(others).toEqual([]);
    expect(letter).toMatchObject({
      queue: QUEUE_NAMES.deliveries,
      name: "order",
      reason: "telegram down",
      attempts: 3,
      summary: { kind: "order", orderId: "o-dead" },
    });
    expect(letter?.id).toMatch(/^d:/);
    expect((await backend.counts())[QUEUE_NAMES.deliveries]?.failed).toBe(1);

    fail = false;
    expect(await backend.replayDeadLetter("d:no-such-job")).toBe(false);
    expect(await backend.replayDeadLetter(letter?.id ?? "")).toBe(true);
    await vi.waitFor(() => expect(attempts).toEqual([0, 1, 2, 0]), { timeout: 5_000 });
    await vi.waitFor(async () => expect(await backend.listDeadLetters(10)).toEqual([]), { timeout: 5_000 });
    expect(await backend.replayDeadLetter(letter?.id ?? "")).toBe(false);
  });

  it("runs a job again after RetryLaterError without counting an attempt", async () => {
    const attempts: number[] = [];
    const { backend, failures } = await start({
      deliveries: async (job) => {
        attempts.push(job.attemptsMade);
        if (attempts.length < 3) throw new RetryLaterError(20);
      },
    });
    await backend.deliveries.add("order", { kind: "order", orderId: "o-locked" });
    await vi.waitFor(() => expect(attempts).toHaveLength(3), { timeout: 5_000 });
    expect(attempts).toEqual([0, 0, 0]);
    expect(failures).toEqual([]);
  });

  it("runs ingest one job at a time and deliveries in parallel up to the concurrency", async () => {
    const running = { ingest: 0, deliveries: 0 };
    const peak = { ingest: 0, deliveries: 0 };
    const done = { ingest: 0, deliveries: 0 };
    const work = (queue: "ingest" | "deliveries") => async () => {
      running[queue] += 1;
      peak[queue] = Math.max(peak[queue], running[queue]);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running[queue] -= 1;
      done[queue] += 1;
    };
    const { backend } = await start({ ingest: work("ingest"), deliveries: work("deliveries") });
    for (let n = 0; n < 8; n += 1) {
      await backend.ingest.add("webhook", { kind: "webhook", n });
      await backend.deliveries.add("order", { kind: "order", n });
    }
    await vi.waitFor(() => expect(done).toEqual({ ingest: 8, deliveries: 8 }), { timeout: 10_000 });
    expect(peak.ingest).toBe(1);
    expect(peak.deliveries).toBeGreaterThan(1);
    expect(peak.deliveries).toBeLessThanOrEqual(4);
  });

  it("ticks the reconciler repeatedly", async () => {
    let ticks = 0;
    await start({
      reconcileTick: async () => {
        ticks += 1;
      },
      reconcileEveryMs: 50,
    });
    await vi.waitFor(() => expect(ticks).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
  });

  it("lets the job in flight finish when closed", async () => {
    let finished = false;
    let began: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      began = resolve;
    });
    const { backend } = await start({
      deliveries: async () => {
        began();
        await new Promise((resolve) => setTimeout(resolve, 200));
        finished = true;
      },
    });
    await backend.deliveries.add("order", { kind: "order", orderId: "o-slow" });
    await started;
    expect(await backend.ping()).toBeDefined();
    await backend.close(5_000);
    expect(finished).toBe(true);
  });
});
