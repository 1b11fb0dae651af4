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
