import type { BotContext } from "#src/bot/context.js";
import type { AnsweredQueries } from "#src/bot/telegram-transformers.js";
import { describeApiError } from "./api-errors.ts";
import { mainMenuKeyboard } from "./main-menu.ts";

/** The last line of defence: something failed inside a handler; tell the user calmly and give them a way on. */
export async function describeError(
  ctx: BotContext,
  error?: unknown,
  answered?: AnsweredQueries,
): Promise<void> {
  // ctx.t is missing if the failure happened before the language was known.
  const t = ctx.t ?? ctx.deps?.translator.t("en");
  if (!t) return;
  const { text } = describeApiError(error, t);
  // The handler may have answered the button before it failed: Telegram takes one answer per press.
  if (ctx.callbackQuery && !answered?.has(ctx.callbackQuery.id)) {
    await ctx
      .answerCallbackQuery({ text: t("errors:unexpected_short"), show_alert: false })
      .catch(() => undefined);
  }
  if (ctx.chat?.type === "private") {
    await ctx.reply(`${text}\n\n${t("errors:way_on")}`, { reply_markup: mainMenuKeyboard(t) });
  }
}
