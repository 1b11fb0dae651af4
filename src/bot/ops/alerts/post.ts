import { type Api, InlineKeyboard } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import type { AnyAlert } from "#src/bot/rules/alert-types.js";
import { intlLocale, resolveLanguage } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import { alertButtons, alertLine } from "./render.ts";

interface PostDeps {
  deps: Pick<BotDeps, "config" | "store" | "translator" | "accountLanguage">;
  telegram: Api;
  logger: Logger;
  flushEveryMs: number;
  maxPerMessage: number;
}

/** The admin group's language and locale (the account's language setting, else the default). */
export function opsView(deps: Pick<BotDeps, "translator" | "accountLanguage">) {
  const language = resolveLanguage({ account: deps.accountLanguage?.value });
  return { t: deps.translator.t(language), locale: intlLocale(language) };
}

/**
 * Post queued alerts in one message (at most `maxPerMessage`), one post per `flushEveryMs` across all processes;
 * resolves to how many were posted. Alerts Telegram refused go back in front for the next flush.
 */
export function alertPoster({ deps, telegram, logger, flushEveryMs, maxPerMessage }: PostDeps) {
  return async function flush(): Promise<number> {
    const chatId = deps.config.admin.chatId;
    if (chatId === undefined) return 0;
    if (!(await deps.store.alerts.claimFlush(Math.max(1_000, flushEveryMs - 100)))) return 0;
    const raws = await deps.store.alerts.take(maxPerMessage);
    if (raws.length === 0) return 0;
    const alerts = raws.flatMap((raw) => {
      try {
        return [JSON.parse(raw) as AnyAlert];
      } catch {
        return [];
      }
    });
    const { t, locale } = opsView(deps);
    const lines: string[] = [];
    const keyboard = new InlineKeyboard();
    for (const alert of alerts) {
      lines.push(alertLine(alert, t, locale));
      const buttons = await alertButtons(alert, t, deps.store);
      if (buttons.length > 0) keyboard.row(...buttons);
    }
    const header = t("admin:alerts.header", { count: alerts.length });
    const text = `${header}\n\n${lines.join("\n\n")}`.slice(0, 4000);
    try {
      await telegram.sendMessage(chatId, text, {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(keyboard.inline_keyboard.length > 0 ? { reply_markup: keyboard } : {}),
      });
      return alerts.length;
    } catch (error) {
      // Put them back in front for the next flush; never lose an alert to a Telegram hiccup.
      await deps.store.alerts.putBack(raws);
      logger.error({ err: error }, "could not post ops alerts");
      return 0;
    }
  };
}
