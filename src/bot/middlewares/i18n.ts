import type { Context, MiddlewareFn } from "grammy";
import type { BotDeps, DepsFlavor, I18nFlavor } from "#src/bot/context.js";
import { intlLocale, resolveLanguage } from "#src/i18n/index.js";
import type { UserRecord } from "#src/store/user-record.js";

/**
 * Resolve the user's language for this update: their /language choice → Telegram's language_code (when we ship
 * it) → the payout account's language setting → English. Installed on the outer bot and again inside
 * conversations (conversation contexts are rebuilt on replay and lack outer properties).
 */
export function i18nMiddleware<C extends Context & I18nFlavor & DepsFlavor>(deps: BotDeps): MiddlewareFn<C> {
  return async (ctx, next) => {
    ctx.deps = deps;
    const userId = ctx.from?.id;
    const user = userId === undefined ? undefined : await deps.store.users.get(userId);
    applyLanguage(ctx, deps, user);
    await next();
  };
}

export function applyLanguage(ctx: Context & I18nFlavor, deps: BotDeps, user: UserRecord | undefined): void {
  const language = resolveLanguage({
    chosen: user?.language,
    telegram: ctx.from?.language_code,
    account: deps.accountLanguage.value,
  });
  ctx.language = language;
  ctx.locale = intlLocale(language);
  ctx.t = deps.translator.t(language);
}
