import { createConversation } from "@grammyjs/conversations";
import { type CallbackQueryContext, Composer, type NextFunction } from "grammy";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { enterFlow, FLOWS } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import { replyQuoteExpired } from "#src/bot/flow/quote-expired.js";
import { isSpeed } from "#src/bot/rules/onchain.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import { parseOrderCallback, REQUOTE_CALLBACK_PATTERN } from "#src/orders/index.js";
import { buyData } from "./callback-data.ts";
import { type BuyArgs, buyFlow } from "./conversation.ts";

async function enterBuy(ctx: BotContext, args?: BuyArgs): Promise<void> {
  await enterFlow(ctx, FLOWS.buy, args);
}

/**
 * /buy and the menu's "Buy bitcoin" start the flow; the buttons that outlive it live here: a late or second
 * Confirm (toast only), the sandbox's "Simulate payment" on the status card, and "New quote" on an expired buy.
 */
function buyComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const privateChats = composer.chatType("private");

  privateChats.command("buy", (ctx) => enterBuy(ctx));
  composer.callbackQuery(menuData.filter({ action: "buy" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await enterBuy(ctx);
  });

  // Confirm pressed when no buy flow waits for it: a double tap after confirming, or a quote that was left.
  composer.callbackQuery(buyData.filter({ action: "confirm" }), async (ctx) => {
    const { value: orderId } = buyData.unpack(ctx.callbackQuery.data) as { value: string };
    const order = await ctx.deps.store.orders.get(orderId);
    const confirmed =
      order?.confirmedAt !== undefined || (await ctx.deps.store.buyMarks.confirmTaken(orderId));
    if (order && order.userId === ctx.from.id && confirmed) {
      await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.already_confirmed") });
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.inactive"), show_alert: true });
    await ctx.editMessageReplyMarkup().catch(() => undefined);
  });

  composer.callbackQuery(buyData.filter({ action: "sim" }), simulateBuyPayIn);

  composer.callbackQuery(REQUOTE_CALLBACK_PATTERN, requoteBuy);

  return composer;
}

/** "Simulate payment" on a buy's status card (sandbox only): the naira pay-in, once per order. */
async function simulateBuyPayIn(ctx: CallbackQueryContext<BotContext>): Promise<void> {
  const { value: orderId } = buyData.unpack(ctx.callbackQuery.data) as { value: string };
  const { deps } = ctx;
  const order = await deps.store.orders.get(orderId);
  if (deps.config.payout.env === "production") {
    await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.unavailable_production") });
    return;
  }
  if (!order || order.userId !== ctx.from.id || order.kind !== "buy") {
    await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.not_yours") });
    return;
  }
  if (order.stage !== "awaiting_payment" || (await deps.store.buyMarks.simulated(orderId))) {
    await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.already_simulated") });
    return;
  }
  if (deps.now() >= Date.parse(order.expiresAt)) {
    // Past the quote's deadline on the API's clock: the API would refuse it; say so in our words, no call.
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup().catch(() => undefined);
    await replyQuoteExpired(ctx, order);
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.simulating") });
  try {
    // A simulated pay-in is a money action in the sandbox too: once per order, never repeated on failure. A press
    // whose process died mid-call is taken over: the sandbox refuses to pay a quote twice ("Quote already paid").
    await deps.store.once.run(
      "simulate",
      orderId,
      () => deps.api.simulatePayIn({ quoteId: order.quoteId, currency: "NGN", amount: order.pay.amount }),
      { ...(deps.processes ? { processes: deps.processes } : {}), takeover: true },
    );
    await deps.store.buyMarks.markSimulated(orderId);
    await ctx.reply(
      ctx.t("buy:simulate.done", {
        amount: escapeHtml(formatMoney(order.pay.amount, "NGNKOBO", ctx.locale)),
      }),
      {
        parse_mode: "HTML",
        reply_parameters: order.statusMessageId
          ? { message_id: order.statusMessageId, allow_sending_without_reply: true }
          : undefined,
      },
    );
  } catch (error) {
    deps.logger.warn({ err: error, orderId }, "simulated pay-in failed");
    const { text } = describeApiError(error, ctx.t);
    await ctx.reply(ctx.t("buy:simulate.failed", { reason: quoteInput(text, 200) }), {
      parse_mode: "HTML",
    });
  }
}

/** "New quote" on an expired buy: same address, speed and sats; the payout feature handles payout orders. */
async function requoteBuy(ctx: CallbackQueryContext<BotContext>, next: NextFunction): Promise<void> {
  const orderId = parseOrderCallback(ctx.callbackQuery.data)?.orderId ?? "";
  const order = await ctx.deps.store.orders.get(orderId);
  if (order?.kind !== "buy") return next();
  if (order.userId !== ctx.from.id) {
    await ctx.answerCallbackQuery({ text: ctx.t("buy:toast.not_yours") });
    return;
  }
  const claimed = await ctx.deps.store.buyMarks.claimRequote(orderId);
  await ctx.answerCallbackQuery({
    text: ctx.t(claimed ? "buy:toast.requoting" : "common:stale_button"),
  });
  if (!claimed) return;
  await ctx.editMessageReplyMarkup().catch(() => undefined);
  const address = order.beneficiary?.onChainAddress;
  await enterBuy(ctx, {
    ...(typeof address === "string" ? { address } : {}),
    ...(isSpeed(order.speed) ? { speed: order.speed } : {}),
    amount: { minor: order.receive.amount, currency: "BTCSAT" },
    requoteOf: orderId,
  });
}

export function buyFeature(): Feature {
  return {
    name: "buy",
    conversations: [createConversation<BotContext, FlowContext>(buyFlow, { id: FLOWS.buy })],
    composer: buyComposer(),
  };
}
