import type { FeatureRuntime, FeatureServices, Job } from "#src/bot/flow/feature.js";
import type { Logger } from "#src/log/logger.js";
import { opsCheck } from "./checks.ts";
import { alertPoster } from "./post.ts";

/**
 * Ops alerts in the admin group. Alerts are queued in Redis (any process may raise them, the events pipeline's go
 * through the `alert` sink) and posted in batches — at most `maxPerMessage` alerts per message, one message per
 * `flushEveryMs` across all processes — so a burst never trips the group's ~20 messages/minute limit. A periodic
 * check (one process at a time) adds low-balance and payout-API alerts and expires treasury requests nobody
 * approved.
 */
export function createAlerts(
  runtime: FeatureRuntime,
  options: { checkEveryMs?: number; maxPerMessage?: number } = {},
): FeatureServices {
  const { deps, telegram } = runtime;
  const logger = deps.logger.child({ module: "alerts" });
  const flushEveryMs = runtime.schedule.alertFlushMs ?? 5_000;
  const checkEveryMs = options.checkEveryMs ?? 60_000;
  const maxPerMessage = options.maxPerMessage ?? 10;
  const flush = alertPoster({ deps, telegram, logger, flushEveryMs, maxPerMessage });
  const timed = everyMs("ops-alert-post", flushEveryMs, flush, logger);
  const post: Job = {
    ...timed,
    async stop() {
      await timed.stop?.();
      await deps.store.alerts.releaseFlush().catch(() => undefined);
      await flush().catch((error: unknown) => logger.warn({ err: error }, "final alert flush failed"));
    },
  };
  const check = opsCheck(runtime, { checkEveryMs, logger });
  return {
    jobs: [post, everyMs("ops-checks", checkEveryMs, check, logger)],
    sinks: { alert: (alert) => runtime.raise(alert) },
  };
}

/** A job on its own interval timer, in every process (the task's own Redis claim keeps it to one at a time). */
function everyMs(name: string, ms: number, task: () => Promise<unknown>, logger: Logger): Job {
  let timer: NodeJS.Timeout | undefined;
  return {
    name,
    schedule: `every ${ms / 1000} s`,
    where: "every process",
    run: task,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        task().catch((error: unknown) => logger.warn({ err: error, job: name }, "ops timer task failed"));
      }, ms);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
