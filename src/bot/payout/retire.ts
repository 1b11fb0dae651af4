import type { BotContext } from "#src/bot/context.js";
import { supersede } from "#src/bot/rules/supersede.js";
import { formatCancelTime } from "#src/orders/index.js";

/** How many of the user's newest orders can hold the live quote card of the flow being left. */
const RECENT_ORDERS = 3;

/**
 * The payout flow was left for another: a quote card nobody confirmed would otherwise keep Confirm / Refresh /
 * Cancel that no longer lead anywhere. Its order is dropped like the card's own ❌ does (stage `cancelled`, no
 * notification) and the card says "Quote cancelled at" when.
 */
export async function retireQuoteCards(ctx: BotContext): Promise<void> {
  const userId = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (userId === undefined || chatId === undefined) return;
  const { orders } = await ctx.deps.store.orders.listForUser(userId, 0, RECENT_ORDERS);
  for (const order of orders) {
    const live =
      order.kind === "payout" &&
      order.chatId === chatId &&
      order.stage === "awaiting_payment" &&
      !order.confirmedAt &&
      order.quoteMessageId !== undefined;
    if (!live) continue;
    const dropped = await supersede(ctx.deps, order.orderId, "cancelled");
    // Expired meanwhile (the reconciler's edit says so already) or gone: the card is left as it is.
    if (dropped?.stage !== "cancelled") continue;
    const time = formatCancelTime(dropped, ctx.locale);
    await ctx.api
      .editMessageText(chatId, order.quoteMessageId!, ctx.t("payout:quote.cancelled", { time }))
      .catch(() => undefined);
  }
}
