import type { Context, MiddlewareFn } from "grammy";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import { isOpsAdmin } from "#src/bot/rules/ops-admins.js";
import type { IncomingLimit, UpdateReadKeys } from "#src/store/index.js";
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
 * Ops admins (listed in ADMIN_USER_IDS and an administrator of the ops group: rules/ops-admins.ts) are not limited:
 * they are trusted and audited, and an incident is when they tap fastest. Their updates are counted like everyone's
 * (so the first reads need no lookup) and one over the limit goes on once the role is confirmed; anyone else —
 * a plain or restricted member of the ops group included — is limited. An update with no sender (a channel post)
 * is neither limited nor read ahead.
 */
export function admitMiddleware(
  deps: BotDeps,
  stateKeys: (ctx: Context) => ChatStateKeys | undefined,
): MiddlewareFn<BotContext> {
  const admissionOf = admission(deps, stateKeys);
  const limit = deps.config.incomingLimit;
  return async (ctx, next) => {
    const admitted = admissionOf(ctx);
    if (!admitted) return next();
    const { verdict, run } = await deps.store.updateReads.begin(admitted.read, admitted.limit);
    const { userId } = admitted.read;
    if (verdict === "allow" || (await isOpsAdmin(deps, ctx.api, userId))) return run(next);
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

/**
 * What admit reads first for an update and the limit it counts it against: undefined for an update with no sender
 * or chat (neither limited nor read ahead). The update inbox asks the same of a bare context of the update
 * (createBot's `firstReadsOf`) to make these reads with the update's lease.
 */
export function admission(
  deps: BotDeps,
  stateKeys: (ctx: Context) => ChatStateKeys | undefined,
): (ctx: Context) => { read: UpdateReadKeys; limit?: IncomingLimit } | undefined {
  const limit = deps.config.incomingLimit;
  return (ctx) => {
    const userId = ctx.from?.id;
    const state = stateKeys(ctx);
    if (userId === undefined || state === undefined) return undefined;
    return { read: { userId, ...state }, ...(limit ? { limit } : {}) };
  };
}
