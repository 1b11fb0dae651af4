import { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { parseOrderCallback, RECEIPT_CALLBACK_PATTERN, renderReceipt } from "#src/orders/index.js";
import { offerRepeat } from "./repeats/feature.ts";

/**
 * "🧾 Receipt" on a completed order's status card: the receipt as a message of its own, to forward or keep. Only the
 * order's owner gets it (a forwarded card's button pressed by someone else gets a toast). A payout's receipt is
 * followed by the offer to repeat it every week or month (src/bot/account/repeats).
 */
function receiptComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.callbackQuery(RECEIPT_CALLBACK_PATTERN, async (ctx) => {
    const orderId = parseOrderCallback(ctx.callbackQuery.data)?.orderId ?? "";
    const order = await ctx.deps.store.orders.get(orderId);
    if (!order || order.userId !== ctx.from.id) {
      await ctx.answerCallbackQuery({ text: ctx.t("status:toast.receipt_not_found") });
      return;
    }
    if (order.stage !== "completed") {
      await ctx.answerCallbackQuery({ text: ctx.t("status:toast.receipt_not_ready") });
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.t("status:toast.receipt") });
    await ctx.reply(renderReceipt(order, ctx.t, ctx.locale, ctx.me.username), {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    });
    await offerRepeat(ctx, order);
  });
  return composer;
}

export function receiptFeature(): Feature {
  return { name: "receipt", composer: receiptComposer() };
}
