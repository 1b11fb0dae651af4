import { type Api, GrammyError, type InlineKeyboard } from "grammy";
import type { TFunction } from "i18next";
import type { Logger } from "#src/log/logger.js";
import type { Metrics } from "#src/metrics.js";
import {
  type RenderedCard,
  renderNotification,
  renderQuoteExpired,
  renderStatusCard,
} from "#src/orders/status-card.js";
import type { OrderRecord, OrderStage, Store } from "#src/store/index.js";

/**
 * Telegram side of order updates: edit the one status card, send the short notification, edit an expired quote
 * card. Calls go through the bot's grammY `Api` (auto-retry + throttler), so 429s wait instead of failing
 * and bursts are spread out; here we only classify what is left.
 */

/** The user blocked the bot, deleted their account or never started it: nothing more can be sent. */
export class UnreachableUserError extends Error {
  constructor(
    readonly userId: number,
    readonly description: string,
  ) {
    super(`user ${userId} is unreachable: ${description}`);
    this.name = "UnreachableUserError";
  }
}

export interface View {
  t: TFunction;
  /** Intl locale of the owner's language. */
  locale: string;
}

interface NotifierDeps {
  telegram: Api;
  store: Store;
  logger: Logger;
  metrics?: Metrics;
}

const UNREACHABLE =
  /bot was blocked|user is deactivated|chat not found|bot can't initiate|PEER_ID_INVALID|bot was kicked/i;
const NOT_MODIFIED = /message is not modified/i;

export class Notifier {
  constructor(private readonly deps: NotifierDeps) {}

  /**
   * Bring the status card to the order's current state: edit it in place, or, when there is none or it can no
   * longer be edited (deleted, too old), send a new card and remember its id. Returns the order as stored.
   */
  async showStatus(order: OrderRecord, view: View): Promise<OrderRecord> {
    const card = renderStatusCard(order, view.t, view.locale);
    if (order.statusMessageId !== undefined) {
      const edited = await this.edit(order, order.statusMessageId, card);
      if (edited) return order;
    }
    const sent = await this.call(order, "sendMessage", () =>
      this.deps.telegram.sendMessage(order.chatId, card.text, messageOptions(card.keyboard)),
    );
    this.deps.metrics?.notifications.inc({ kind: "card_new" });
    const annotated = await this.deps.store.orders.annotate(order.orderId, {
      statusMessageId: sent.message_id,
    });
    return annotated ?? { ...order, statusMessageId: sent.message_id };
  }

  /** A quote that expired before the user confirmed it: its card says so and offers a new quote. */
  async showQuoteExpired(order: OrderRecord, view: View): Promise<void> {
    if (order.quoteMessageId === undefined) return;
    const card = renderQuoteExpired(order, view.t, view.locale);
    await this.edit(order, order.quoteMessageId, card, "quote_expired");
  }

  /** Drop the buttons of the quote card (already gone or unchanged: fine). */
  async clearQuoteButtons(order: OrderRecord): Promise<void> {
    if (order.quoteMessageId === undefined) return;
    try {
      await this.call(order, "editMessageReplyMarkup", () =>
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
    await this.call(order, "sendMessage", () =>
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

  /** True when the message now shows `card` (including "not modified"); false when it cannot be edited. */
  private async edit(
    order: OrderRecord,
    messageId: number,
    card: RenderedCard,
    kind: "card_edit" | "quote_expired" = "card_edit",
  ): Promise<boolean> {
    try {
      await this.call(order, "editMessageText", () =>
        this.deps.telegram.editMessageText(order.chatId, messageId, card.text, messageOptions(card.keyboard)),
      );
      this.deps.metrics?.notifications.inc({ kind });
      return true;
    } catch (error) {
      if (error instanceof GrammyError && NOT_MODIFIED.test(error.description)) return true;
      if (error instanceof GrammyError && error.error_code === 400) {
        this.deps.logger.info(
          { orderId: order.orderId, messageId, reason: error.description },
          "card not editable",
        );
        return false;
      }
      throw error;
    }
  }

  /**
   * Turn "cannot reach this user" into UnreachableUserError. (Errors are counted by method and code in the Api's
   * own transformer, app.ts, which sees every call.)
   */
  private async call<T>(order: OrderRecord, method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      this.deps.logger.debug({ method, orderId: order.orderId, err: error }, "telegram call failed");
      if (
        error instanceof GrammyError &&
        (error.error_code === 403 || (error.error_code === 400 && UNREACHABLE.test(error.description)))
      ) {
        throw new UnreachableUserError(order.userId, error.description);
      }
      throw error;
    }
  }
}

function messageOptions(keyboard: InlineKeyboard | undefined) {
  return {
    parse_mode: "HTML" as const,
    link_preview_options: { is_disabled: true },
    ...(keyboard ? { reply_markup: keyboard } : {}),
  };
}
