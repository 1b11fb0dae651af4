import type { Api, Composer, Middleware } from "grammy";
import type { BotContext, BotDeps, FlowExit } from "#src/bot/context.js";
import type { AnyAlert } from "#src/bot/rules/alert-types.js";
import type { OpsAlert, PaymentLinkEvent } from "#src/events/index.js";
import type { ExtraRoutes } from "#src/http/server.js";
import type { LanguageCode } from "#src/i18n/index.js";
import type { Metrics } from "#src/metrics.js";
import type { ApprovalRecord } from "#src/store/index.js";

/**
 * A feature declares everything it brings: conversations (installed before any handler, so an active flow sees its
 * updates first), handlers (callback buttons included) in its composer, commands for the published menus, and —
 * through `services`, called once the process is wired — its background jobs and the event sinks it listens on.
 */
export interface Feature {
  name: string;
  conversations?: Middleware<BotContext>[];
  composer?: Composer<BotContext>;
  commands?: { private?: string[]; adminGroup?: string[] };
  /** When a flow this feature owns is left for another (leaveFlows): retire what it left on screen. */
  onLeave?: FlowExit;
  services?(runtime: FeatureRuntime): FeatureServices;
}

/** What a feature's jobs and sinks are built from: the bot's dependencies and the process's Telegram client. */
export interface FeatureRuntime {
  deps: BotDeps;
  /** grammY Api with the process's throttler and auto-retry. */
  telegram: Api;
  languageOf(userId: number): Promise<LanguageCode>;
  metrics: Metrics;
  /** Queue an ops alert for the admin group. */
  raise(alert: AnyAlert): Promise<void>;
  /** Every approval change goes to all features' `approvalChanged` sinks (the owner of the request follows). */
  approvalChanged(record: ApprovalRecord): Promise<void>;
  /** Every feature's `opsCheck` sink, for the periodic ops check to run. */
  opsChecks(): Array<{ name: string; run(): Promise<void> }>;
  /** Schedules the process overrides (tests run them faster). */
  schedule: { alertFlushMs?: number; rateAlertEveryMs?: number };
  /** The bot's token: what Telegram signs a Mini App's init data with. */
  botToken: string;
}

export interface FeatureServices {
  jobs?: Job[];
  sinks?: EventSinks;
  /** Web routes the feature serves on the process's HTTP server (web processes only): e.g. the merchant Mini App. */
  routes?: ExtraRoutes;
}

/**
 * A background job. `where`: "workers" runs only where the queue workers run (PROCESS_ROLE all or worker); "every
 * process" runs in web processes too. Timed jobs own their timer (start/stop); "after each reconcile tick" jobs are
 * run by the events pipeline's reconciler. `run` does the job once, now (tests, the local mode terminal).
 */
export interface Job {
  name: string;
  /** How often, in words (logs and docs): "every 60 s", "after each reconcile tick". */
  schedule: string;
  where: "workers" | "every process";
  run(): Promise<unknown>;
  start?(): void;
  stop?(): Promise<void>;
  afterTick?: boolean;
}

/** Where the events pipeline's outputs go. Every feature's sink of a kind is called, in the features' order. */
export interface EventSinks {
  /** An ops alert the pipeline raised. */
  alert?(alert: OpsAlert): Promise<void>;
  /** A payment link's event; answering true consumes it (later sinks do not see it). */
  paymentLink?(event: PaymentLinkEvent): Promise<boolean | undefined>;
  /** A treasury approval request changed (approved and executed, rejected, expired). */
  approvalChanged?(record: ApprovalRecord): Promise<void>;
  /** Part of the periodic ops check (one process at a time): named, for its log line. */
  opsCheck?: { name: string; run(): Promise<void> };
}
