import type { MiddlewareFn } from "grammy";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import { applyLanguage } from "./i18n.ts";

/**
 * Per-user flood control, first in the chain after metrics: an update over the user's limit (USER_RATE_LIMIT,
 * default 20 per 10 s, counted in Redis across processes) reaches no session, no flow and so no payout API call.
 * The first one over the limit in a window gets one localized notice (a toast for a button press); the rest are
 * dropped without a word, so a flood never turns into a flood of replies. Ops (ADMIN_USER_IDS, and anyone in the
 * ops group) are not limited: they are trusted and audited, and an incident is when they tap fastest.
 */
export function rateLimitMiddleware(deps: BotDeps): MiddlewareFn<BotContext> {
  const limit = deps.config.incomingLimit;
  if (!limit) return (_ctx, next) => next();
  const limiter = deps.store.incomingLimiter(limit);
  const ops = new Set(deps.config.admin.userIds);
  const opsChat = deps.config.admin.chatId;
  return async (ctx, next) => {
    const userId = ctx.from?.id;
    if (userId === undefined || ops.has(userId) || (opsChat !== undefined && ctx.chat?.id === opsChat)) {
      return next();
    }
    const verdict = await limiter.hit(userId);
    if (verdict === "allow") return next();
    if (verdict === "drop") return;
    deps.logger.info({ userId, limit }, "incoming flood: updates dropped until the window ends");
    applyLanguage(ctx, deps, await deps.store.users.get(userId));
    const text = ctx.t("limits:slow_down");
    if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text });
    else if (ctx.chat?.type === "private") await ctx.reply(text);
  };
}
