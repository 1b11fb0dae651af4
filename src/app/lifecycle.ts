import { setTimeout as sleep } from "node:timers/promises";
import type { Bot } from "grammy";
import type { PayoutApi } from "#src/api/index.js";
import type { BotContext } from "#src/bot/context.js";
import type { Feature, Job } from "#src/bot/features.js";
import { type EventsPipeline, ensureWebhookRegistered } from "#src/events/index.js";
import type { HttpServer } from "#src/http/index.js";
import type { AccountLanguage } from "#src/i18n/account-language.js";
import type { Translator } from "#src/i18n/index.js";
import type { ProcessRegistry } from "#src/store/index.js";
import type { Poller, UpdateInbox } from "#src/updates/index.js";
import type { AppOptions } from "./options.ts";
import { startTelegram } from "./telegram.ts";

/** What starts and stops with the process, in the order app.start and app.stop need them. */
export interface Running {
  options: AppOptions;
  processes: ProcessRegistry;
  payoutProbe: { start(): void; stop(): void };
  accountLanguage: AccountLanguage;
  http: HttpServer;
  metricsServer?: { start(): Promise<{ url: string }>; stop(): Promise<void> };
  events: EventsPipeline;
  jobs: Job[];
  inbox: UpdateInbox;
  bot: Bot<BotContext>;
  api: PayoutApi;
  translator: Translator;
  features: Feature[];
}

/** Timed jobs of this process: all of them, but a web process (PROCESS_ROLE=web) runs no "workers" job. */
const timedJobs = (parts: Running) =>
  parts.jobs.filter(
    (job) => job.start && (job.where === "every process" || parts.options.config.processRole !== "web"),
  );

/** Start everything; resolves to the URLs served and the Telegram poller (long polling) to stop later. */
export async function startRunning(
  parts: Running,
): Promise<{ httpUrl: string; metricsUrl?: string; poller?: Poller }> {
  const { options, http, events } = parts;
  const { config, logger } = options;
  const role = config.processRole;
  await parts.processes.start();
  parts.payoutProbe.start();
  await parts.accountLanguage.refresh();
  parts.accountLanguage.start(options.accountRefreshMs);
  const { url } = await http.start();
  const metricsUrl = parts.metricsServer ? (await parts.metricsServer.start()).url : undefined;
  // web: acknowledge webhooks and serve the bot without queue workers, so acks never wait behind deliveries.
  if (role !== "web") await events.start();
  for (const job of timedJobs(parts)) job.start!();
  if (role === "worker") {
    // Queue workers and the reconciler only: updates and webhook registration belong to the web processes.
    logger.info({ role, http: url }, "events worker started");
    return { httpUrl: url, metricsUrl };
  }
  const publicUrl = options.publicUrl === "self" ? url : options.publicUrl;
  if (publicUrl && options.payout.webhookSecret) {
    await ensureWebhookRegistered({
      api: parts.api,
      publicUrl,
      secret: options.payout.webhookSecret,
      logger,
    }).catch((error: unknown) =>
      logger.error({ err: error }, "could not register the payout webhook; the reconciler will catch up"),
    );
  }
  const { bot } = parts;
  const poller = await startTelegram({
    bot,
    token: options.telegram.token,
    config,
    logger,
    translator: parts.translator,
    features: parts.features,
    inbox: parts.inbox,
    http,
  });
  logger.info({ username: bot.botInfo.username, mode: config.telegram.mode, role, http: url }, "bot started");
  return { httpUrl: url, metricsUrl, poller };
}

/** Stop in reverse: stop taking traffic, drain, then the workers, jobs and queues; the heartbeat last. */
export async function stopRunning(parts: Running, poller: Poller | undefined): Promise<void> {
  const { http, options } = parts;
  http.beginDraining();
  parts.payoutProbe.stop();
  parts.accountLanguage.stop();
  await poller?.stop();
  if (options.drainMs) await sleep(options.drainMs);
  await http.stop(2_000);
  await parts.metricsServer?.stop();
  await parts.inbox.stop();
  for (const job of timedJobs(parts)) await job.stop?.();
  await parts.events.stop();
  // Last: a lease or lock held until now must not look abandoned while its work finishes; once gone, another
  // process takes over whatever is left at once.
  await parts.processes.stop().catch(() => undefined);
  await parts.api.close();
  options.logger.info("bot stopped");
}
