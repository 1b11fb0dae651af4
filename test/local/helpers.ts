import { Bot, type Context } from "grammy";
import type { TelegramEmulator } from "../support/telegram-driver.ts";

/** A real grammY bot against the emulator, long polling; `stop()` in afterEach. */
export async function startPollingBot(
  tg: TelegramEmulator,
  setup: (bot: Bot) => void,
  options: { allowedUpdates?: string[] } = {},
): Promise<{ bot: Bot; errors: unknown[]; stop: () => Promise<void> }> {
  const bot = new Bot<Context>(tg.token, { client: { apiRoot: tg.apiRoot } });
  const errors: unknown[] = [];
  bot.catch((error) => {
    errors.push(error.error);
  });
  setup(bot);
  await new Promise<void>((resolve, reject) => {
    bot
      .start({
        onStart: () => resolve(),
        ...(options.allowedUpdates ? { allowed_updates: options.allowedUpdates as never } : {}),
      })
      .catch(reject);
  });
  return {
    bot,
    errors,
    stop: async () => {
      if (bot.isRunning()) await bot.stop();
    },
  };
}
