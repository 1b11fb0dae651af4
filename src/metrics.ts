import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { PayoutApiCall } from "./api/index.ts";

/**
 * The process's Prometheus metrics. One registry per process (tests create their own), served by GET /metrics.
 * The bot increments `updatesHandled` / `handlerLatency`; the events pipeline owns the rest and registers the
 * sources the gauges read at scrape time.
 */
export type WebhookOutcome = "accepted" | "duplicate" | "forged" | "malformed" | "ignored" | "error";

/** Job counts of one queue, read at scrape time. */
type QueueCountsSource = () => Promise<Record<string, Record<string, number>>>;
/** Open refunds by state, read at scrape time. */
type RefundCountsSource = () => Promise<Record<string, number>>;

export interface Metrics {
  registry: Registry;
  updatesHandled: Counter<"type">;
  handlerLatency: Histogram<"type">;
  webhookEvents: Counter<"event" | "outcome">;
  /** Notifications delivered to Telegram, by kind (card_edit, card_new, notification, quote_expired). */
  notifications: Counter<"kind">;
  telegramErrors: Counter<"method" | "code">;
  /** Every failed payout API request (each attempt), by error kind and endpoint. */
  payoutApiErrors: Counter<"kind" | "endpoint">;
  /** Every payout API request (each attempt), by endpoint and outcome ("ok" or the error kind). */
  payoutApiDuration: Histogram<"endpoint" | "outcome">;
  /** 1 when the last periodic ping of the payout API answered, 0 when it failed. */
  payoutApiUp: Gauge;
  queueDepth: Gauge<"queue" | "state">;
  deadLetters: Gauge<"queue">;
  /**
   * Register where the queue gauges read their numbers (the events pipeline does this on creation). Returns an
   * unregister function that only clears the source if it is still this one.
   */
  setQueueSource(source: QueueCountsSource): () => void;
  /**
   * Register where payoutbot_refunds_open{state} reads its numbers (the app does, with the store): refunds not
   * finished, by state — awaiting_approval waits for an ops admin, uncertain for ops to check.
   */
  setRefundSource(source: RefundCountsSource): void;
}

/**
 * `defaultMetrics`: the standard Node process metrics (process_cpu_seconds_total, nodejs_heap_size_used_bytes, …)
 * under their standard names, so stock Node dashboards find them. The app turns them on in every environment; tests
 * that build many registries in one process leave them off (each registry adds its own GC observer).
 */
export function createMetrics(options: { defaultMetrics?: boolean; prefix?: string } = {}): Metrics {
  const registry = new Registry();
  const prefix = options.prefix ?? "payoutbot_";
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  // Registered in the order a scrape lists them: the gauges read at scrape time first.
  const queues = queueGauges(registry, prefix);
  const setRefundSource = refundGauge(registry, prefix);
  return {
    registry,
    ...updateMetrics(registry, prefix),
    ...deliveryMetrics(registry, prefix),
    ...payoutApiMetrics(registry, prefix),
    ...queues,
    setRefundSource,
  };
}

/** The bot's: updates handled and how long each took. */
function updateMetrics(
  registry: Registry,
  prefix: string,
): Pick<Metrics, "updatesHandled" | "handlerLatency"> {
  return {
    updatesHandled: new Counter({
      name: `${prefix}updates_handled_total`,
      help: "Telegram updates handled, by update type",
      labelNames: ["type"] as const,
      registers: [registry],
    }),
    handlerLatency: new Histogram({
      name: `${prefix}handler_latency_seconds`,
      help: "Time spent handling one Telegram update",
      labelNames: ["type"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}

/** The events pipeline's: webhooks received, and what reached Telegram (or did not). */
function deliveryMetrics(
  registry: Registry,
  prefix: string,
): Pick<Metrics, "webhookEvents" | "notifications" | "telegramErrors"> {
  return {
    webhookEvents: new Counter({
      name: `${prefix}webhook_events_total`,
      help: "Payout API webhook deliveries, by event and outcome",
      labelNames: ["event", "outcome"] as const,
      registers: [registry],
    }),
    notifications: new Counter({
      name: `${prefix}notifications_total`,
      help: "Messages sent or edited for order status changes",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    telegramErrors: new Counter({
      name: `${prefix}telegram_api_errors_total`,
      help: "Telegram Bot API errors, by method and error code",
      labelNames: ["method", "code"] as const,
      registers: [registry],
    }),
  };
}

/** The payout API client's requests: their duration, failures, and whether the periodic ping answers. */
function payoutApiMetrics(
  registry: Registry,
  prefix: string,
): Pick<Metrics, "payoutApiErrors" | "payoutApiDuration" | "payoutApiUp"> {
  return {
    payoutApiErrors: new Counter({
      name: `${prefix}payout_api_errors_total`,
      help: "Failed payout API requests (every attempt), by error kind (network, timeout, server, …) and endpoint",
      labelNames: ["kind", "endpoint"] as const,
      registers: [registry],
    }),
    payoutApiDuration: new Histogram({
      name: `${prefix}payout_api_request_duration_seconds`,
      help: "Payout API request duration (every attempt), by endpoint and outcome (ok or the error kind)",
      labelNames: ["endpoint", "outcome"] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers: [registry],
    }),
    payoutApiUp: new Gauge({
      name: `${prefix}payout_api_up`,
      help: "1 when the last periodic ping of the payout API (GET /price) answered, 0 when it failed",
      registers: [registry],
    }),
  };
}

/** The events queues' depth and dead letters, read at scrape time from the source the pipeline registers. */
function queueGauges(
  registry: Registry,
  prefix: string,
): Pick<Metrics, "queueDepth" | "deadLetters" | "setQueueSource"> {
  let source: QueueCountsSource | undefined;
  // One scrape reads the counts once and both gauges share it.
  let pending: Promise<Record<string, Record<string, number>>> | undefined;
  const readCounts = async () => {
    if (!source) return {};
    pending ??= source().finally(() => {
      pending = undefined;
    });
    try {
      return await pending;
    } catch {
      return {};
    }
  };
  return {
    queueDepth: new Gauge({
      name: `${prefix}queue_jobs`,
      help: "Jobs in the events queues by state (waiting, delayed, active, prioritized); failed jobs are dead_letters",
      labelNames: ["queue", "state"] as const,
      registers: [registry],
      async collect() {
        const counts = await readCounts();
        this.reset();
        for (const [queue, states] of Object.entries(counts)) {
          for (const state of ["waiting", "delayed", "active", "prioritized"] as const) {
            this.set({ queue, state }, states[state] ?? 0);
          }
        }
      },
    }),
    deadLetters: new Gauge({
      name: `${prefix}dead_letters`,
      help: "Jobs that exhausted their retries and wait for ops to replay them",
      labelNames: ["queue"] as const,
      registers: [registry],
      async collect() {
        const counts = await readCounts();
        this.reset();
        for (const [queue, states] of Object.entries(counts)) this.set({ queue }, states.failed ?? 0);
      },
    }),
    setQueueSource(next) {
      source = next;
      return () => {
        if (source === next) source = undefined;
      };
    },
  };
}

/** payoutbot_refunds_open{state}, read at scrape time; returns where to register its source. */
function refundGauge(registry: Registry, prefix: string): Metrics["setRefundSource"] {
  let refundSource: RefundCountsSource | undefined;
  new Gauge({
    name: `${prefix}refunds_open`,
    help: "Refunds not finished, by state: awaiting_approval waits for an ops admin, uncertain for ops to check",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      // A failed read leaves the last numbers rather than zeros that would look like "nothing waiting".
      const counts = await refundSource?.().catch(() => undefined);
      if (!counts) return;
      this.reset();
      for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
    },
  });
  return (next) => {
    refundSource = next;
  };
}

/** The payout API client's observer: every request timed, every failed one counted (src/api stays metric-free). */
export function observePayoutApi(metrics: Pick<Metrics, "payoutApiDuration" | "payoutApiErrors">) {
  return ({ endpoint, outcome, seconds }: PayoutApiCall): void => {
    metrics.payoutApiDuration.observe({ endpoint, outcome }, seconds);
    if (outcome !== "ok") metrics.payoutApiErrors.inc({ kind: outcome, endpoint });
  };
}
