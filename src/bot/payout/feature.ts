import { createConversation } from "@grammyjs/conversations";
import { type CallbackQueryContext, Composer, InlineKeyboard } from "grammy";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import { describeApiError, isAlreadyPaid } from "#src/bot/flow/api-errors.js";
import { continuation } from "#src/bot/flow/continue.js";
import { enterFlow, FLOWS } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import { replyQuoteExpired } from "#src/bot/flow/quote-expired.js";
import { methodOf } from "#src/corridors/index.js";
import { escapeHtml } from "#src/i18n/index.js";
import { isNairaFunded, parseOrderCallback, REQUOTE_CALLBACK_PATTERN } from "#src/orders/index.js";
import { InFlightError, RecipientLimitError } from "#src/store/index.js";
import { payoutConfirmData, payoutSaveData, payoutSimulateData } from "./callback-data.ts";
import { type PayoutArgs, payoutFlow } from "./conversation.ts";
import { retireQuoteCards } from "./retire.ts";

/** Deep link payload: send_<token of a saved recipient> (≤ 64 characters of A-Z a-z 0-9 _ -). */
const DEEP_LINK = /^send_([A-Za-z0-9_-]{1,59})$/;

/**
 * Entry points of the payout flow (/send, the menu, /start send_<token>, "New quote"), and the buttons that live
 * on after the flow ends: Confirm pressed twice, Simulate payment, Save recipient.
 */
export function payoutFeature(): Feature {
  return {
    name: "payout",
    // The flow goes on as a fresh conversation once its recipient is chosen: `continuation` enters it again.
    conversations: [
      createConversation<BotContext, FlowContext>(payoutFlow, { id: FLOWS.payout }),
      continuation(FLOWS.payout),
    ],
    composer: payoutComposer(),
    onLeave: { flow: FLOWS.payout, run: retireQuoteCards },
  };
}

/**
 * Start the payout flow (other features: "send again" passes { recipientToken }). Conversations are not
 * parallel: whatever flow was open gives way to this one.
 */
async function enterPayout(ctx: BotContext, args?: PayoutArgs): Promise<void> {
  await enterFlow(ctx, FLOWS.payout, args);
}

function payoutComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const privateChats = composer.chatType("private");

  // Before welcome's /start: only a send_ payload is ours.
  privateChats.command("start", async (ctx, next) => {
    const match = DEEP_LINK.exec(ctx.match.trim());
    if (!match?.[1]) return next();
    await enterPayout(ctx, { recipientToken: match[1] });
  });

  privateChats.command("send", (ctx) => enterPayout(ctx));

  composer.callbackQuery(menuData.filter({ action: "send" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await enterPayout(ctx);
  });

  composer.callbackQuery(REQUOTE_CALLBACK_PATTERN, async (ctx) => {
    await ctx.answerCallbackQuery();
    const orderId = parseOrderCallback(ctx.callbackQuery.data)?.orderId ?? "";
    if (ctx.callbackQuery.message) await ctx.editMessageReplyMarkup().catch(() => undefined);
    await enterPayout(ctx, { requoteOrderId: orderId, requoteKey: ctx.callbackQuery.id });
  });

  composer.callbackQuery(payoutConfirmData.filter(), async (ctx) => {
    const { orderId } = payoutConfirmData.unpack(ctx.callbackQuery.data);
    const order = await ctx.deps.store.orders.get(orderId);
    const confirmed = order?.confirmedAt && order.userId === ctx.from.id;
    const already =
      order && isNairaFunded(order) ? "naira:quote.already_confirmed" : "payout:quote.already_confirmed";
    await ctx.answerCallbackQuery({ text: ctx.t(confirmed ? already : "payout:stale") });
  });

  composer.callbackQuery(payoutSimulateData.filter(), simulatePayment);
  composer.callbackQuery(payoutSaveData.filter(), saveRecipient);

  return composer;
}

/** Simulate payment (sandbox and test only): the sandbox pays the quote's invoice, once per order. */
async function simulatePayment(ctx: CallbackQueryContext<BotContext>): Promise<void> {
  const { orderId } = payoutSimulateData.unpack(ctx.callbackQuery.data);
  const { deps } = ctx;
  const order = await deps.store.orders.get(orderId);
  if (deps.config.payout.env === "production" || !order || order.userId !== ctx.from.id) {
    await ctx.answerCallbackQuery({ text: ctx.t("payout:stale") });
    return;
  }
  if (order.stage !== "awaiting_payment") {
    await ctx.answerCallbackQuery({ text: ctx.t("payout:simulate.not_open") });
    await dropPressedButton(ctx);
    return;
  }
  if (deps.now() >= Date.parse(order.expiresAt)) {
    // Past the quote's deadline on the API's clock: the API would refuse it; say so in our words, no call.
    await ctx.answerCallbackQuery();
    await dropPressedButton(ctx);
    await replyQuoteExpired(ctx, order);
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.t("payout:simulate.started") });
  try {
    // A press whose process died mid-call may be taken over: the sandbox refuses a second payment of a quote
    // ("Quote already paid"), so running it again is safe and the user is never left with a dead button.
    await deps.store.once.run(
      "simulate",
      orderId,
      () =>
        deps.api.simulatePayIn(
          isNairaFunded(order)
            ? { quoteId: order.quoteId, currency: "NGN", amount: order.pay.amount }
            : { quoteId: order.quoteId, currency: "BTC" },
        ),
      { ...(deps.processes ? { processes: deps.processes } : {}), takeover: true },
    );
    await dropPressedButton(ctx);
  } catch (error) {
    if (error instanceof InFlightError) return;
    if (isAlreadyPaid(error)) {
      await dropPressedButton(ctx);
      return;
    }
    deps.logger.warn({ err: error, orderId }, "payment simulation failed");
    await ctx.reply(describeApiError(error, ctx.t).text);
  }
}

/** Save recipient under a receipt: the payout's beneficiary becomes a saved recipient with its send_ link. */
async function saveRecipient(ctx: CallbackQueryContext<BotContext>): Promise<void> {
  const { orderId } = payoutSaveData.unpack(ctx.callbackQuery.data);
  const { store } = ctx.deps;
  const order = await store.orders.get(orderId);
  const kind = order?.beneficiary ? methodOf(order.beneficiary) : undefined;
  if (!order?.beneficiary || order.userId !== ctx.from.id || !kind) {
    await ctx.answerCallbackQuery({ text: ctx.t("payout:stale") });
    return;
  }
  try {
    const recipient = await store.recipients.save({
      userId: order.userId,
      corridor: order.corridor,
      method: kind.method,
      label: order.recipientLabel,
      details: order.beneficiary,
    });
    await store.orders.annotate(orderId, { recipientId: recipient.id });
    await ctx.answerCallbackQuery({ text: ctx.t("payout:save.saved") });
    await dropPressedButton(ctx);
    const link = `https://t.me/${ctx.me.username}?start=send_${recipient.token}`;
    await ctx.reply(
      ctx.t("payout:save.done", { label: escapeHtml(recipient.label), link: escapeHtml(link) }),
      {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
      },
    );
  } catch (error) {
    if (!(error instanceof RecipientLimitError)) throw error;
    await ctx.answerCallbackQuery({
      text: ctx.t("payout:save.limit", { limit: error.limit }),
      show_alert: true,
    });
  }
}

/** Take the pressed button off its message, keeping the others. */
async function dropPressedButton(ctx: BotContext): Promise<void> {
  const message = ctx.callbackQuery?.message;
  const pressed = ctx.callbackQuery?.data;
  if (!message || !("reply_markup" in message) || !message.reply_markup) return;
  const rows = message.reply_markup.inline_keyboard
    .map((row) => row.filter((button) => !("callback_data" in button) || button.callback_data !== pressed))
    .filter((row) => row.length > 0);
  await ctx
    .editMessageReplyMarkup({ reply_markup: rows.length > 0 ? InlineKeyboard.from(rows) : undefined })
    .catch(() => undefined);
}
