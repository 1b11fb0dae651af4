import { GrammyError } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { escapeHtml, intlLocale } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { createOrderMessages, telegramError } from "#src/orders/messages.js";
import { replyHtml } from "./command-tools.ts";

/**
 * "📨 Re-deliver" on an order alert: send the order's status card to its owner again, as a new message in their
 * language, and make it the card the pipeline edits from now on. For a user marked unreachable (they had blocked
 * the bot) it is the way back: a successful send clears the mark; Telegram's refusal is shown to ops as it came.
 */
export async function redeliverStatus(ctx: BotContext, orderId: string): Promise<void> {
  const { store, translator, accountLanguage, logger } = ctx.deps;
  const order = await store.orders.get(orderId);
  if (!order) {
    await ctx.answerCallbackQuery({ text: ctx.t("admin:order.not_found_toast") });
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.t("admin:alerts.redelivering") });
  const language = await languageResolver(store.users, accountLanguage)(order.userId);
  const view = { t: translator.t(language), locale: intlLocale(language) };
  const messages = createOrderMessages({ telegram: ctx.api, store, now: ctx.deps.now, logger });
  try {
    await messages.resendStatus(order, view).catch((error: unknown) => {
      throw telegramError(error);
    });
    await store.users.update(order.userId, { unreachable: false });
    await store.audit.record({
      actor: ctx.from?.id ?? "system",
      action: "order.redeliver",
      details: { orderId: order.orderId, userId: String(order.userId) },
    });
    await replyHtml(
      ctx,
      ctx.t("admin:alerts.redelivered", { orderId: escapeHtml(order.orderId), userId: order.userId }),
    );
  } catch (error) {
    if (!(error instanceof GrammyError)) throw error;
    logger.info({ orderId, code: error.error_code }, "re-delivery refused by Telegram");
    await replyHtml(
      ctx,
      ctx.t("admin:alerts.redeliver_failed", {
        orderId: escapeHtml(order.orderId),
        reason: escapeHtml(error.description),
      }),
    );
  }
}
