import { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import { escapeHtml } from "#src/i18n/index.js";

/** /start, /help and the main menu. Deep links (/start send_<token>) are handled by the payout feature first. */
export function welcomeFeature() {
  const composer = new Composer<BotContext>();
  const privateChats = composer.chatType("private");

  privateChats.command("start", async (ctx) => {
    await ctx.reply(ctx.t("common:welcome", { name: escapeHtml(ctx.from.first_name) }), {
      parse_mode: "HTML",
      reply_markup: mainMenuKeyboard(ctx.t),
    });
  });

  privateChats.command("help", async (ctx) => {
    await ctx.reply(ctx.t("common:help"), { parse_mode: "HTML", reply_markup: mainMenuKeyboard(ctx.t) });
  });

  composer.callbackQuery(menuData.filter({ action: "help" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t("common:help"), { parse_mode: "HTML", reply_markup: mainMenuKeyboard(ctx.t) });
  });

  // Money happens in private chats only: in groups, point people to the private chat.
  composer.chatType(["group", "supergroup"]).command(["start", "send", "buy"], async (ctx) => {
    await ctx.reply(ctx.t("common:private_only", { username: ctx.me.username }), {
      reply_markup: {
        inline_keyboard: [[{ text: ctx.t("common:open_private"), url: `https://t.me/${ctx.me.username}` }]],
      },
    });
  });

  return composer;
}
