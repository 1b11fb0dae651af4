import type { Update } from "grammy/types";
import type { LocalTelegram } from "./local-telegram.ts";
import { type RedisSnapshot, redisDelta } from "./redis.ts";
import { type LatencySummary, summarize } from "./report.ts";
import { type RunResult, runJourneys, type Step } from "./runner.ts";

/** One measured run of a journey, with what it cost in this process, in Redis and in Telegram calls. */
export interface Phase {
  run: RunResult;
  redis: ReturnType<typeof redisDelta>;
  telegramCalls: number;
  /** Redis commands per step (only when measured step by step). */
  redisByStep: Record<string, number[]>;
}

export interface PhaseOptions {
  steps: readonly Step[];
  users: number;
  firstUserId: number;
  concurrency: number;
  scripted: boolean;
  /** Snapshot Redis around every update (one user at a time only: the counts are global). */
  redisPerStep?: boolean;
}

export async function measurePhase(
  handle: (update: Update) => Promise<unknown>,
  tg: LocalTelegram,
  snapshot: () => Promise<RedisSnapshot>,
  options: PhaseOptions,
): Promise<Phase> {
  globalThis.gc?.();
  const redisByStep: Record<string, number[]> = Object.fromEntries(options.steps.map((s) => [s.name, []]));
  let stepBefore: RedisSnapshot | undefined;
  const perStep = options.redisPerStep && options.concurrency === 1;
  const before = await snapshot();
  const callsBefore = tg.totalCalls();
  const run = await runJourneys({
    handle,
    tg,
    ...options,
    onUserDone: (userId) => tg.forget(userId),
    ...(perStep
      ? {
          beforeStep: async () => {
            stepBefore = await snapshot();
          },
          afterStep: async (_userId: number, step: Step) => {
            if (!stepBefore) return;
            redisByStep[step.name]?.push(redisDelta(stepBefore, await snapshot()).total);
          },
        }
      : {}),
  });
  const after = await snapshot();
  return { run, redis: redisDelta(before, after), telegramCalls: tg.totalCalls() - callsBefore, redisByStep };
}

/** One of the bots measured side by side, one user at a time. */
export interface AloneContender {
  handle: (update: Update) => Promise<unknown>;
  steps: readonly Step[];
  firstUserId: number;
  scripted: boolean;
}

/**
 * One user at a time, the contenders taking turns user by user (ours, the peer, the floor, ours…): whatever else the
 * shared machine does in the meantime falls on all of them alike, which a run of each after the other does not
 * give (the ratio moved by ±20% between runs that way). A contender's CPU is the whole process from its user's
 * first update until `settleMs` after the last answer, so work an update does after it answered (our
 * acknowledgement) is counted; the pause costs no CPU and is the same for all.
 */
export async function measureAlone(
  contenders: readonly AloneContender[],
  tg: LocalTelegram,
  snapshot: () => Promise<RedisSnapshot>,
  options: { users: number; settleMs: number },
): Promise<Phase[]> {
  const totals = contenders.map((contender) => ({
    run: {
      updates: 0,
      wallMs: 0,
      cpuUserMs: 0,
      cpuSystemMs: 0,
      latenciesMs: [] as number[],
      byStep: Object.fromEntries(contender.steps.map((step) => [step.name, [] as number[]])),
      cpuByStep: Object.fromEntries(contender.steps.map((step) => [step.name, [] as number[]])),
      failures: [] as RunResult["failures"],
      completedJourneys: 0,
    } satisfies RunResult,
    redis: { calls: {} as Record<string, number>, total: 0, cpuSeconds: 0 },
    telegramCalls: 0,
    redisByStep: {},
  }));
  globalThis.gc?.();
  for (let index = 0; index < options.users; index += 1) {
    for (const [which, contender] of contenders.entries()) {
      const total = totals[which]!;
      const before = await snapshot();
      const callsBefore = tg.totalCalls();
      const cpu = process.cpuUsage();
      const started = performance.now();
      const run = await runJourneys({
        handle: contender.handle,
        tg,
        steps: contender.steps,
        users: 1,
        firstUserId: contender.firstUserId + index,
        concurrency: 1,
        scripted: contender.scripted,
      });
      await new Promise((resolve) => setTimeout(resolve, options.settleMs));
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const redis = redisDelta(before, await snapshot());
      tg.forget(contender.firstUserId + index);
      total.run.updates += run.updates;
      total.run.wallMs += wallMs - options.settleMs;
      total.run.cpuUserMs += used.user / 1000;
      total.run.cpuSystemMs += used.system / 1000;
      total.run.latenciesMs.push(...run.latenciesMs);
      for (const step of contender.steps) {
        total.run.byStep[step.name]?.push(...(run.byStep[step.name] ?? []));
        total.run.cpuByStep[step.name]?.push(...(run.cpuByStep[step.name] ?? []));
      }
      total.run.failures.push(...run.failures);
      total.run.completedJourneys += run.completedJourneys;
      total.telegramCalls += tg.totalCalls() - callsBefore;
      total.redis.total += redis.total;
      total.redis.cpuSeconds += redis.cpuSeconds;
      for (const [name, count] of Object.entries(redis.calls))
        total.redis.calls[name] = (total.redis.calls[name] ?? 0) + count;
    }
  }
  return totals;
}

export interface PerUpdate {
  updatesPerSecond: number;
  cpuMsPerUpdate: number;
  wallMsPerUpdate: number;
  redisCommandsPerUpdate: number;
  redisCpuMsPerUpdate: number;
  telegramCallsPerUpdate: number;
  latency: LatencySummary;
}

export function perUpdate(phase: Phase): PerUpdate {
  const { run } = phase;
  const updates = Math.max(1, run.updates);
  return {
    updatesPerSecond: run.updates / (run.wallMs / 1000),
    cpuMsPerUpdate: (run.cpuUserMs + run.cpuSystemMs) / updates,
    wallMsPerUpdate: run.wallMs / updates,
    redisCommandsPerUpdate: phase.redis.total / updates,
    redisCpuMsPerUpdate: (phase.redis.cpuSeconds * 1000) / updates,
    telegramCallsPerUpdate: phase.telegramCalls / updates,
    latency: summarize(run.latenciesMs),
  };
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;

/** Per step: alone (one user at a time) latency, CPU and Redis commands; loaded latency. */
/** `counted`: a one-at-a-time run with Redis read around every update (its CPU and timings are not used). */
export function stepRows(steps: readonly Step[], alone: Phase, counted: Phase, loaded: Phase) {
  return steps.map((step) => ({
    step: step.name,
    aloneP50: summarize(alone.run.byStep[step.name] ?? []).p50,
    aloneCpuMs: mean(alone.run.cpuByStep[step.name] ?? []),
    redisCommands: mean(counted.redisByStep[step.name] ?? []),
    loadedP50: summarize(loaded.run.byStep[step.name] ?? []).p50,
    loadedP99: summarize(loaded.run.byStep[step.name] ?? []).p99,
  }));
}
