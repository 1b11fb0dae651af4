import { createHmac } from "node:crypto";
import { type Bot, BotError } from "grammy";
import type { Update } from "grammy/types";
import { publishCommandMenus } from "#src/bot/commands.js";
import type { BotContext } from "#src/bot/context.js";
import type { Feature } from "#src/bot/features.js";
import type { Config } from "#src/config.js";
import { DEFAULT_TELEGRAM_PATH, type HttpServer } from "#src/http/index.js";
import type { Translator } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import { connectTelegram } from "#src/ops/connect-telegram.js";
import {
  ALLOWED_UPDATES,
  inboxWebhookHandler,
  type Poller,
  startPolling,
  type UpdateInbox,
} from "#src/updates/index.js";

/**
 * The bot's side of start-up (web and all-in-one processes): connect to Telegram, publish the command menus, then
 * take updates into the inbox by webhook or by long polling (returned, to stop it).
 */
export async function startTelegram(parts: {
  bot: Bot<BotContext>;
  token: string;
  config: Config;
  logger: Logger;
  translator: Translator;
  features: Feature[];
  inbox: UpdateInbox;
  http: HttpServer;
}): Promise<Poller | undefined> {
  const { bot, token, config, logger, inbox, http } = parts;
  if (!bot.isInited()) {
    bot.botInfo = await connectTelegram({ token, config, logger });
  }
  await bot.init();
  const menus = { privateExtra: [] as string[], adminGroup: [] as string[] };
  for (const feature of parts.features) {
    menus.privateExtra.push(...(feature.commands?.private ?? []));
    menus.adminGroup.push(...(feature.commands?.adminGroup ?? []));
  }
  await publishCommandMenus(bot.api, parts.translator, { adminChatId: config.admin.chatId, menus }).catch(
    (error: unknown) => logger.warn({ err: error }, "could not publish the command menus"),
  );

  await inbox.start();
  if (config.telegram.mode === "webhook") {
    // Every process of one deployment must agree on the secret without sharing more config: derive it from the
    // bot token (one-way), unless TELEGRAM_WEBHOOK_SECRET is set.
    const secretToken =
      config.telegram.webhookSecret ??
      createHmac("sha256", token).update("telegram-webhook-secret").digest("hex");
    // Recorded and answered at once; the inbox handles it (a slow payout API never makes Telegram redeliver).
    http.setTelegramRoute({ handler: inboxWebhookHandler(inbox, logger), secretToken });
    await bot.api.setWebhook(`${config.http.publicUrl}${DEFAULT_TELEGRAM_PATH}`, {
      secret_token: secretToken,
      allowed_updates: [...ALLOWED_UPDATES],
    });
    return undefined;
  }
  await bot.api.deleteWebhook();
  return startPolling({ api: bot.api, inbox, logger });
}

/**
 * `bot.handleUpdate` throws middleware errors as BotError and leaves bot.catch to its callers (bot.start and the
 * runner call it): so does the inbox. An error bot.catch handled counts as handled; anything else stays in the inbox.
 */
export async function handleWithCatch(bot: Bot<BotContext>, update: Update): Promise<void> {
  try {
    await bot.handleUpdate(update);
  } catch (error) {
    if (!(error instanceof BotError)) throw error;
    await bot.errorHandler(error as BotError<BotContext>);
  }
}
