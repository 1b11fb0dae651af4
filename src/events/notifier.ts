import { type Api, GrammyError } from "grammy";
import type { Logger } from "#src/log/logger.js";
import type { Metrics } from "#src/metrics.js";
import { type OrderMessages, telegramCall, type View } from "#src/orders/messages.js";
import { renderNotification, renderQuoteExpired } from "#src/orders/status-card.js";
import type { OrderRecord, OrderStage } from "#src/store/index.js";

/**
 * Telegram side of order updates besides the status card (src/orders/messages.ts owns that): the short
 * notification, an expired quote card, the quote card's buttons. Calls go through the bot's grammY `Api`
 * (auto-retry + throttler), so 429s wait instead of failing and bursts are spread out; here we only classify what
 * is left.
 */

interface NotifierDeps {
  telegram: Api;
  messages: OrderMessages;
  logger: Logger;
  metrics?: Metrics;
}

export class Notifier {
  constructor(private readonly deps: NotifierDeps) {}

  /** A quote that expired before the user confirmed it: its card says so and offers a new quote. */
  async showQuoteExpired(order: OrderRecord, view: View): Promise<void> {
    if (order.quoteMessageId === undefined) return;
    const card = renderQuoteExpired(order, view.t, view.locale);
    await this.deps.messages.editCard(order, order.quoteMessageId, card, "quote_expired");
  }

  /** Drop the buttons of the quote card (already gone or unchanged: fine). */
  async clearQuoteButtons(order: OrderRecord): Promise<void> {
    if (order.quoteMessageId === undefined) return;
    try {
      await telegramCall(this.deps.logger, order, "editMessageReplyMarkup", () =>
        this.deps.telegram.editMessageReplyMarkup(order.chatId, order.quoteMessageId!),
      );
    } catch (error) {
      if (error instanceof GrammyError && error.error_code === 400) return;
      throw error;
    }
  }

  /** The short message that makes the phone buzz, threaded under the status card. */
  async notify(order: OrderRecord, stage: OrderStage, view: View): Promise<boolean> {
    const text = renderNotification(order, view.t, view.locale, stage);
    if (!text) return false;
    const replyTo = order.statusMessageId;
    await telegramCall(this.deps.logger, order, "sendMessage", () =>
      this.deps.telegram.sendMessage(order.chatId, text, {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(replyTo === undefined
          ? {}
          : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      }),
    );
    this.deps.metrics?.notifications.inc({ kind: "notification" });
    return true;
  }
}
