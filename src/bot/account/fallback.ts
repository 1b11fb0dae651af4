import { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import type { AnsweredQueries } from "#src/bot/telegram-transformers.js";

/**
 * Last in the chain: unknown text in a private chat brings back the main menu instead of silence; a button from an
 * old screen gets a toast instead of a spinner that never stops.
 */
export function fallbackFeature(answered?: AnsweredQueries) {
  const composer = new Composer<BotContext>();
  composer.on("callback_query", async (ctx) => {
    // A handler that answered and passed the update on already stopped the spinner.
    if (answered?.has(ctx.callbackQuery.id)) return;
    await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
  });
  composer.chatType("private").on("message", async (ctx) => {
    await ctx.reply(ctx.t("common:unknown_input"), { reply_markup: mainMenuKeyboard(ctx.t) });
  });
  return composer;
}
