import { InlineKeyboard } from "grammy";
import type { BotDeps, FlowContext, FlowConversation } from "#src/bot/context.js";
import { telegramOnce } from "#src/bot/flow/telegram-once.js";
import { renderQuoteExpired } from "#src/orders/index.js";
import { createOrderMessages, telegramError } from "#src/orders/messages.js";
import type { OrderRecord } from "#src/store/index.js";
import { buyData } from "./callback-data.ts";
import { buyQuoteKeyboard, buyQuoteText } from "./quote-card.ts";
import { waitForInput } from "./screens.ts";

/** The status card of a confirmed buy: the sandbox and staging add a button that simulates the bank transfer. */
export function buyStatusKeyboard(
  deps: Pick<BotDeps, "config">,
  order: OrderRecord,
  t: FlowContext["t"],
  cardKeyboard: InlineKeyboard | undefined,
): InlineKeyboard | undefined {
  if (deps.config.payout.env === "production" || order.stage !== "awaiting_payment") return cardKeyboard;
  const keyboard = InlineKeyboard.from(cardKeyboard?.inline_keyboard ?? []);
  return keyboard.row().text(t("buy:simulate.button"), buyData.pack({ action: "sim", value: order.orderId }));
}

/**
 * Wait for Confirm on the quote card. Confirm: answer at once, keep only the copy buttons on the card, send the one
 * status message and remember it on the order. An expired quote turns into the "expired" card with "New quote".
 */
export async function awaitConfirmation(
  conversation: FlowConversation,
  ctx: FlowContext,
  order: OrderRecord,
  /** `shownAt`: when the card was shown, on the API's clock. */
  quote: { messageId: number; shownAt: number },
): Promise<void> {
  const deps = ctx.deps;
  // Once the quote has expired (plus a minute of grace) the flow lets go: a later Confirm or text goes to the
  // normal handlers (the quote card itself is turned into "expired" by the reconciler). The expiry is on the API's
  // clock; the wait is measured on the conversation's, so only the time left carries over.
  const left = Math.max(0, Date.parse(order.expiresAt) - quote.shownAt);
  const deadline = (await conversation.now()) + left + 60_000;
  const input = await waitForInputUntilButton(conversation, quote.messageId, deadline);
  const current = input;
  const now = await conversation.external(() => deps.now());
  if (now >= Date.parse(order.expiresAt)) {
    await current.answerCallbackQuery({ text: current.t("buy:toast.expired") });
    const expired = renderQuoteExpired(order, current.t, current.locale);
    await current
      .editMessageText(expired.text, { parse_mode: "HTML", reply_markup: expired.keyboard })
      .catch(() => undefined);
    return;
  }
  // The marker holds the pressing update's id: the same press handled again (its process died mid-way) goes on,
  // another press (a double tap, an old card) only gets the toast.
  const pressedBy = String(current.update.update_id);
  const first = await conversation.external(() => deps.store.buyMarks.claimConfirm(order.orderId, pressedBy));
  if (!first) {
    await current.answerCallbackQuery({ text: current.t("buy:toast.already_confirmed") });
    return;
  }
  // Confirmed before anything is sent: a crash from here on leaves the order to the recovery sweep.
  const confirmedAt = new Date(now).toISOString();
  await conversation.external(async () => {
    await deps.store.orders.annotate(order.orderId, { confirmedAt });
  });
  await current.answerCallbackQuery({ text: current.t("buy:toast.confirmed") });
  await current
    .editMessageText(buyQuoteText({ order, nowMs: quote.shownAt }, current.t, current.locale, true), {
      parse_mode: "HTML",
      reply_markup: buyQuoteKeyboard(order, current.t, true),
    })
    .catch(() => undefined);
  // The card through the order's message owner (Confirm claimed it for this flow), so no other sender adds one.
  await telegramOnce(conversation, async (outside) => {
    const { store, now, logger } = deps;
    const messages = createOrderMessages({ telegram: outside.api, store, now, logger });
    const view = { t: current.t, locale: current.locale };
    const keyboard = (rendered: InlineKeyboard | undefined) =>
      buyStatusKeyboard(deps, order, current.t, rendered);
    await messages.showStatus(order, view, { by: "flow", keyboard }).catch((error) => {
      throw telegramError(error);
    });
  });
  await conversation.external(async () => {
    await deps.store.orders.annotate(order.orderId, { deliveredAt: new Date(deps.now()).toISOString() });
  });
}

async function waitForInputUntilButton(
  conversation: FlowConversation,
  messageId: number,
  deadline: number,
): Promise<FlowContext> {
  for (;;) {
    const input = await waitForInput(conversation, {
      messageId,
      deadline,
      actions: ["confirm"],
      acceptText: false,
      hint: (current) => current.t("buy:quote.press_button"),
    });
    if (input.kind === "button") return input.ctx;
  }
}
