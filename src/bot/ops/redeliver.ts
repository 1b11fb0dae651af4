import { GrammyError } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { escapeHtml, intlLocale } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { renderStatusCard } from "#src/orders/index.js";
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
  const card = renderStatusCard(order, translator.t(language), intlLocale(language));
  try {
    const sent = await ctx.api.sendMessage(order.chatId, card.text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
    });
    await store.orders.annotate(order.orderId, { statusMessageId: sent.message_id });
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
