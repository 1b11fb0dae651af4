import type { UserFromGetMe } from "grammy/types";
import type { Redis } from "ioredis";
import type { BotDeps } from "#src/bot/context.js";
import type { Feature } from "#src/bot/features.js";
import type { TelegramTransformerOptions } from "#src/bot/telegram-transformers.js";
import type { Config } from "#src/config.js";
import type { OpsAlert, PaymentLinkEvent } from "#src/events/index.js";
import type { OutboundNetwork } from "#src/http/guarded-fetch.js";
import type { Logger } from "#src/log/logger.js";

/** What createApp (src/app.ts) is built from: main.ts, the local mode launcher and the end-to-end harness fill it. */
export interface AppOptions {
  config: Config;
  logger: Logger;
  redis: Redis;
  /**
   * The events pipeline's queues: BullMQ on `redis` (default), or in-process when `redis` is the in-memory stand-in
   * of local mode (which cannot run BullMQ's scripts).
   */
  queueBackend?: "bullmq" | "memory";
  /** Where the payout API is (the real one, or the embedded sandbox main started). */
  payout: { baseUrl: string; apiKey: string; webhookSecret?: string };
  telegram: { token: string; botInfo?: UserFromGetMe };
  /** Telegram outbound policy (throttling off for benchmarks). */
  telegramPolicy?: TelegramTransformerOptions;
  /** The URL the payout API can reach our webhook at; for the embedded sandbox, our own loopback address. */
  publicUrl?: string | "self";
  features?: (deps: BotDeps) => Feature[];
  reconcileEveryMs?: number;
  /**
   * The payout API's clock, for deadlines, expiry and reconciliation: the embedded sandbox's clock (local mode,
   * tests). Without it the API's clock is tracked from its responses' Date headers (ServerClock).
   */
  now?: () => number;
  /** How often the account language setting is re-read (default 5 min). */
  accountRefreshMs?: number;
  /** How often batched ops alerts are posted (default 5 s; tests use less). */
  alertFlushMs?: number;
  /** How often armed rate alerts are checked against fresh prices (default 60 s). */
  rateAlertEveryMs?: number;
  /** Chats whose updates this process handles at once (default 32). */
  updateConcurrency?: number;
  /**
   * On stop, how long /readyz answers 503 while everything else still serves, so a load balancer stops sending
   * traffic before the server closes (main: 1 s; default 0 for in-process tests).
   */
  drainMs?: number;
  /** Tests only: where Lightning-address lookups resolve and connect (a local LNURL server). */
  outbound?: OutboundNetwork;
  /** Extra observers of ops alerts and merchant events (tests). */
  hooks?: {
    onAlert?: (alert: OpsAlert) => unknown;
    onPaymentLinkEvent?: (event: PaymentLinkEvent) => unknown;
  };
}
