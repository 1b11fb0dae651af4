import type { Api } from "grammy";
import type { Redis } from "ioredis";
import type { RawRequestHandler, ReadinessCheck } from "#src/http/server.js";
import type { LanguageCode, Translator } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import type { Metrics } from "#src/metrics.js";
import type { ProcessRegistry, Store, UserRecord } from "#src/store/index.js";
import type { DeadLetter, RetryOverrides } from "./queue.ts";
import type { CheckOutcome, ReconcilerOptions } from "./reconciler.ts";
import type { DeliverMissing, RecoveryOptions } from "./recovery.ts";
import type { EventsPayoutApi, OpsAlert, PaymentLinkEvent } from "./types.ts";

/** What the events pipeline needs (createEventsPipeline) and what it offers the app. */
export interface EventsPipelineDeps {
  /** The app's client (the pipeline's own keys); BullMQ gets a duplicate() of it. */
  redis: Redis;
  /**
   * Where jobs wait: "bullmq" (Redis; durable, shared by every process — the default) or "memory" (in-process; for
   * local mode on an in-memory Redis stand-in, which cannot run BullMQ's scripts).
   */
  queueBackend?: "bullmq" | "memory";
  logger: Logger;
  store: Store;
  api: EventsPayoutApi;
  /** grammY Api with auto-retry and the outbound pacer installed (bursts are delivered late, never dropped). */
  telegram: Api;
  translator: Translator;
  /**
   * The owner's language: chosen → Telegram's → account default → en. Deliveries pass the user record they have
   * just read (undefined: no record), so the resolver need not read it again.
   */
  languageOf: (userId: number, user?: UserRecord) => Promise<LanguageCode>;
  metrics?: Metrics;
  webhookSecret?: string;
  /** Also accepted on incoming webhooks during a secret rotation (receiver.ts). */
  previousWebhookSecret?: string;
  allowUnsigned?: boolean;
  onAlert?: (alert: OpsAlert) => unknown;
  onPaymentLinkEvent?: (event: PaymentLinkEvent) => unknown;
  /**
   * Sends a confirmed order's missing invoice / status card (the bot renders them). With it, the recovery sweep
   * runs at start and on every reconciler tick (src/events/recovery.ts).
   */
  deliverMissing?: DeliverMissing;
  recovery?: Partial<RecoveryOptions>;
  /** More due-time work run after every reconciler tick (the bot's repeat sends); a failure waits for the next tick. */
  afterTick?: () => Promise<unknown>;
  /**
   * Reconciler tick period (default 7 s). A tick that finds on-chain withdrawals waiting for blocks keeps checking
   * them (every 2 s each) until the next tick is due.
   */
  reconcileEveryMs?: number;
  reconciler?: Partial<ReconcilerOptions>;
  /** After a non-final transition the reconciler re-checks the order this much later (default 60 s). */
  followUpMs?: number;
  /** Parallel deliveries per process (different orders; one order is always one at a time). Default 16. */
  deliveryConcurrency?: number;
  /** Retry policy overrides per queue (defaults: ingest 8 attempts from 1 s, deliveries 10 from 2 s). */
  retries?: Partial<Record<"ingest" | "deliveries", RetryOverrides>>;
  /** BullMQ key prefix (default "bull"). */
  queuePrefix?: string;
  /** Clock for expiry and reconciler scheduling (tests move it forward). */
  now?: () => number;
  /**
   * This process's heartbeat (shared with other parts of the process when given). Without one the pipeline keeps
   * its own. Delivery locks name it, so a restarted or sibling process takes over a dead one's locks at once.
   */
  processes?: ProcessRegistry;
  /** How long stop() waits for jobs in flight before forcing the workers closed. Default 10 s. */
  stopGraceMs?: number;
}

export interface EventsPipeline {
  /** Where jobs wait: BullMQ on Redis, or local mode's in-process queues. */
  readonly queueBackend: "bullmq" | "memory";
  /** POST /webhooks/payout handler for createHttpServer({ payoutWebhook }). Works before start(). */
  webhookHandler: RawRequestHandler;
  /** Redis and queue reachability for /readyz (app.ts adds the payout API ping). */
  readiness: ReadinessCheck[];
  start(): Promise<void>;
  /** Graceful: stop taking jobs, finish the ones in flight, close workers, queues and connections. */
  stop(): Promise<void>;
  deadLetters: { list(limit?: number): Promise<DeadLetter[]>; replay(id: string): Promise<boolean> };
  /** Job counts by queue and state. */
  stats(): Promise<Record<string, Record<string, number>>>;
  /** Check one order against the API now (an ops "re-check" button); missed transitions go the usual way. */
  recheckOrder(orderId: string): Promise<CheckOutcome | "unknown_order">;
  /** Check the on-chain withdrawals waiting for confirmations now (a block was just mined); returns how many. */
  recheckPendingOnchain(): Promise<number>;
}
