import type { Gauge } from "prom-client";
import type { Logger } from "#src/log/logger.js";
import { reasonOf } from "./dependencies.ts";

/**
 * Pings the payout API from every process on a timer: `payoutbot_payout_api_up` (1/0) and one log line per change
 * (the first answer at start included). Readiness does not depend on it: when the provider is down the bot keeps
 * taking updates and tells users payouts are paused, instead of the load balancer dropping every instance.
 */
interface PayoutProbeDeps {
  ping: () => Promise<unknown>;
  up: Pick<Gauge, "set">;
  logger: Logger;
  /** Safe to log: scheme, host and port. */
  target: string;
  everyMs?: number;
}

interface PayoutProbe {
  start(): void;
  stop(): void;
}

export function createPayoutProbe(deps: PayoutProbeDeps): PayoutProbe {
  const everyMs = deps.everyMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  let last: boolean | undefined;

  async function probe(): Promise<void> {
    const started = performance.now();
    try {
      await deps.ping();
      deps.up.set(1);
      if (last !== true) {
        deps.logger.info(
          {
            dependency: "payout_api",
            target: deps.target,
            durationMs: Math.round(performance.now() - started),
          },
          `payout api: connected to ${deps.target}`,
        );
      }
      last = true;
    } catch (error) {
      deps.up.set(0);
      if (last !== false) {
        deps.logger.warn(
          { dependency: "payout_api", target: deps.target, reason: reasonOf(error), retryInMs: everyMs },
          `payout api: cannot reach ${deps.target} (${reasonOf(error)}), checking again every ${everyMs / 1000} s`,
        );
      }
      last = false;
    }
  }

  return {
    start() {
      if (timer) return;
      void probe();
      timer = setInterval(() => void probe(), everyMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
