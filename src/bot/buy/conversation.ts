import { InlineKeyboard } from "grammy";
import type { Speed } from "#src/api/index.js";
import { PayoutApiError } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { cancelButton, mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { isSpeed, MIN_ONCHAIN_SATS } from "#src/bot/rules/onchain.js";
import { maintenanceNotice, quotesPaused } from "#src/bot/rules/pauses.js";
import { quoteBudgetText } from "#src/bot/rules/quote-budget.js";
import { formatMoney } from "#src/money/index.js";
import { askAddress } from "./address-step.ts";
import { askAmount } from "./amount-step.ts";
import { buyData } from "./callback-data.ts";
import { awaitConfirmation } from "./confirm-step.ts";
import { buyQuoteKeyboard, buyQuoteText } from "./quote-card.ts";
import { createBuyQuote, isBelowMinimum, type QuoteOutcome, routeQuoteFailure } from "./quote-step.ts";
import { type BuyAmount, type BuyArgs, waitForInput } from "./screens.ts";
import { askSpeed } from "./speed-step.ts";

export type { BuyArgs } from "./screens.ts";

/**
 * Buy bitcoin on-chain with a naira bank transfer: address → speed → amount → quote card (exact amount, virtual
 * account, expiry, code) → Confirm → the one status message, which the events pipeline then moves through
 * received → sent (txid) → confirmations → done. Arguments skip steps ("New quote" on an expired buy).
 */
export async function buyFlow(
  conversation: FlowConversation,
  ctx: FlowContext,
  args?: BuyArgs,
): Promise<void> {
  let address = typeof args?.address === "string" ? args.address : undefined;
  let speed: Speed | undefined = isSpeed(args?.speed) ? args.speed : undefined;
  let amount: BuyAmount | undefined = validAmount(args?.amount);
  let problem: string | undefined;
  // Stable per attempt: the user's amount message, a retry press, or the expired order being re-quoted.
  let key = args?.requoteOf ? `${ctx.chatId}:requote:${args.requoteOf}` : undefined;
  // One user action, one quote at the API: "Try again" keeps the failed attempt's reference and reads back first.
  let reference: string | undefined;
  let resolveFirst = false;
  let current = ctx;

  for (;;) {
    address ??= await askAddress(conversation, current);
    speed ??= await askSpeed(conversation, current);
    if (!amount || !key) {
      const typed = await askAmount(conversation, current, problem ? { problem } : {});
      amount = { minor: typed.minor, currency: typed.currency };
      key = `${current.chatId}:${typed.messageId}`;
      problem = undefined;
    }
    if (!resolveFirst || !reference) reference = customerReferenceFor(key);

    await current.replyWithChatAction("typing").catch(() => undefined);
    const input = {
      key,
      customerReference: reference,
      resolveFirst,
      chatId: current.chatId!,
      userId: current.from!.id,
      address,
      speed,
      amount,
    };
    const deps = current.deps;
    // Ops may have paused new quotes while this user was mid-flow: nothing is quoted, the flow ends politely.
    const pause = await conversation.external(() => quotesPaused(deps, "BUY"));
    if (pause.paused) {
      await current.reply(maintenanceNotice(current.t, pause), { parse_mode: "HTML" });
      return;
    }
    const outcome: QuoteOutcome = await conversation.external(() => createBuyQuote(deps, input));
    resolveFirst = false;

    if (outcome.ok) {
      const shownAt = await conversation.external(() => deps.now());
      const view = { order: outcome.order, nowMs: shownAt };
      const card = await current.reply(buyQuoteText(view, current.t, current.locale), {
        parse_mode: "HTML",
        reply_markup: buyQuoteKeyboard(outcome.order, current.t),
      });
      await conversation.external(() =>
        deps.store.orders.annotate(outcome.order.orderId, { quoteMessageId: card.message_id }),
      );
      await awaitConfirmation(conversation, current, outcome.order, {
        messageId: card.message_id,
        shownAt,
      });
      return;
    }

    const route = routeQuoteFailure(outcome);
    const minSats = formatMoney(MIN_ONCHAIN_SATS, "BTCSAT", current.locale);
    if (route === "address") {
      await current.reply(current.t("buy:quote.address_rejected"));
      address = undefined;
      key = undefined;
      continue;
    }
    if (route === "amount") {
      problem = isBelowMinimum(outcome)
        ? current.t("buy:quote.below_minimum", { minSats })
        : failureText(current, outcome);
      key = undefined;
      continue;
    }
    if (route === "stop") {
      await current.reply(failureText(current, outcome), {
        parse_mode: "HTML",
        reply_markup: mainMenuKeyboard(current.t),
      });
      return;
    }
    // Retryable (API down, busy, slow): keep everything and wait for the user's "Try again".
    const said = outcome.outcomeUnknown ? current.t("safety:quote.uncertain") : failureText(current, outcome);
    const retry = await current.reply(`${said}\n\n${current.t("buy:quote.retry_hint")}`, {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard()
        .text(current.t("common:retry_button"), buyData.pack({ action: "retry", value: "" }))
        .add(cancelButton(current.t)),
    });
    const pressed = await waitForButton(conversation, retry.message_id, "retry");
    await pressed.answerCallbackQuery();
    await pressed.editMessageReplyMarkup().catch(() => undefined);
    key = `${pressed.chatId}:retry:${retry.message_id}`;
    resolveFirst = true;
    current = pressed;
  }
}

function validAmount(value: unknown): BuyAmount | undefined {
  const amount = value as BuyAmount | undefined;
  if (!amount || !Number.isSafeInteger(amount.minor) || amount.minor <= 0) return undefined;
  return amount.currency === "NGNKOBO" || amount.currency === "BTCSAT" ? amount : undefined;
}

function failureText(ctx: FlowContext, outcome: Extract<QuoteOutcome, { ok: false }>): string {
  if (outcome.kind === "incomplete") return ctx.t("buy:quote.incomplete");
  if (outcome.kind === "in_flight") return ctx.t("errors:api.unreachable");
  if (outcome.kind === "unexpected") return ctx.t("errors:unexpected");
  if (outcome.kind === "quote_budget")
    return quoteBudgetText(ctx.t, ctx.locale, "NG", outcome.retryAtMs ?? 0);
  const error = new PayoutApiError({
    kind: outcome.kind,
    endpoint: "POST /quote",
    detail: "as reported",
    // Only matched against the known messages: the API's own words never reach the user.
    ...(outcome.apiMessage ? { apiMessage: outcome.apiMessage } : {}),
    ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
  });
  return describeApiError(error, ctx.t).text;
}

async function waitForButton(
  conversation: FlowConversation,
  messageId: number,
  action: string,
): Promise<FlowContext> {
  for (;;) {
    const input = await waitForInput(conversation, {
      messageId,
      actions: [action],
      acceptText: false,
      hint: (current) => current.t("buy:quote.retry_hint"),
    });
    if (input.kind === "button") return input.ctx;
  }
}
