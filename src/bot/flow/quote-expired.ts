import { InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { formatExpiryTime, requoteCallbackData } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";

/**
 * "This quote expired at 10:05, so it can no longer be paid; nothing was charged", with the "New quote" button the
 * pipeline puts on expired cards: what a payment action on a quote past its deadline gets instead of an API call.
 */
export async function replyQuoteExpired(ctx: BotContext, order: OrderRecord): Promise<void> {
  await ctx.reply(ctx.t("quote:expired.pay", { time: formatExpiryTime(order, ctx.locale) }), {
    parse_mode: "HTML",
    reply_markup: new InlineKeyboard().text(
      ctx.t("status:button.newQuote"),
      requoteCallbackData(order.orderId),
    ),
  });
}
