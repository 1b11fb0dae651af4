import type { MiddlewareFn } from "grammy";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import { applyLanguage } from "./i18n.ts";

/**
 * Outer-bot middleware: remember who is talking to us (one Redis read; a write only when something changed or
 * the record is stale), pick their language, and stop blocked users here, politely.
 */
export function identifyMiddleware(deps: BotDeps): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    ctx.deps = deps;
    const from = ctx.from;
    let user = from && !from.is_bot ? await deps.store.users.get(from.id) : undefined;
    if (from && !from.is_bot) {
      const stale = !user || Date.now() - Date.parse(user.lastSeenAt) > 10 * 60_000;
      const changed =
        !user ||
        user.unreachable ||
        user.firstName !== from.first_name ||
        user.username !== from.username ||
        user.telegramLanguage !== from.language_code;
      if (stale || changed) {
        user = await deps.store.users.touch({
          id: from.id,
          firstName: from.first_name,
          username: from.username,
          telegramLanguage: from.language_code,
        });
      }
    }
    applyLanguage(ctx, deps, user);
    if (user?.blocked) {
      if (ctx.callbackQuery)
        await ctx.answerCallbackQuery({ text: ctx.t("common:blocked"), show_alert: true });
      else if (ctx.chat?.type === "private") await ctx.reply(ctx.t("common:blocked"));
      return;
    }
    await next();
  };
}
