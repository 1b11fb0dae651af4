import type { MiddlewareFn } from "grammy";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import { applyLanguage } from "./i18n.ts";

/** Where the chat's session and conversation state live (the bot's session and conversation storage keys). */
export interface ChatStateKeys {
  sessionKey: string;
  conversationKey: string;
}

/**
 * First in the chain after metrics: per-user flood control, and what every update reads, in one Redis round trip
 * (store/update-reads.ts): the sender's flood window, their user record, the chat's session and its conversation
 * state. The rest of the update runs with those cached, so the identify step, the session, the conversation plugin
 * and every later lookup of the same user or setting read nothing again.
 *
 * An update over the user's limit (USER_RATE_LIMIT, default 20 per 10 s, counted in Redis across processes) reaches
 * no session, no flow and so no payout API call. The first one over the limit in a window gets one localized notice
 * (a toast for a button press); the rest are dropped without a word, so a flood never turns into a flood of replies.
 * Ops (ADMIN_USER_IDS, and anyone in the ops group) are not limited: they are trusted and audited, and an incident
 * is when they tap fastest. An update with no sender (a channel post) is neither limited nor read ahead.
 */
export function admitMiddleware(
  deps: BotDeps,
  stateKeys: (ctx: BotContext) => ChatStateKeys | undefined,
): MiddlewareFn<BotContext> {
  const limit = deps.config.incomingLimit;
  const ops = new Set(deps.config.admin.userIds);
  const opsChat = deps.config.admin.chatId;
  return async (ctx, next) => {
    const userId = ctx.from?.id;
    const state = stateKeys(ctx);
    if (userId === undefined || state === undefined) return next();
    const exempt = ops.has(userId) || (opsChat !== undefined && ctx.chat?.id === opsChat);
    const { verdict, run } = await deps.store.updateReads.begin(
      { userId, ...state },
      exempt ? undefined : limit,
    );
    if (verdict === "allow") return run(next);
    if (verdict === "drop") return;
    deps.logger.info({ userId, limit }, "incoming flood: updates dropped until the window ends");
    await run(async () => {
      applyLanguage(ctx, deps, await deps.store.users.get(userId));
      const text = ctx.t("limits:slow_down");
      if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text });
      else if (ctx.chat?.type === "private") await ctx.reply(text);
    });
  };
}
