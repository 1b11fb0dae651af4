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
/** Where the buy flow stands between attempts (a step's answer is kept until something sends the user back). */
interface BuyState {
  address: string | undefined;
  speed: Speed | undefined;
  amount: BuyAmount | undefined;
  /** Why the amount is asked again (shown with the question). */
  problem: string | undefined;
  /** Stable per attempt: the user's amount message, a retry press, or the expired order being re-quoted. */
  key: string | undefined;
  /** One user action, one quote at the API: "Try again" keeps the failed attempt's reference and reads back first. */
  reference: string | undefined;
  resolveFirst: boolean;
  /** The update the flow answers (the retry press, after one). */
  current: FlowContext;
}

export async function buyFlow(
  conversation: FlowConversation,
  ctx: FlowContext,
  args?: BuyArgs,
): Promise<void> {
  const state: BuyState = {
    address: typeof args?.address === "string" ? args.address : undefined,
    speed: isSpeed(args?.speed) ? args.speed : undefined,
    amount: validAmount(args?.amount),
    problem: undefined,
    key: args?.requoteOf ? `${ctx.chatId}:requote:${args.requoteOf}` : undefined,
    reference: undefined,
    resolveFirst: false,
    current: ctx,
  };
  for (;;) {
    const input = await quoteInputOf(conversation, state);
    const { current } = state;
    const deps = current.deps;
    // Ops may have paused new quotes while this user was mid-flow: nothing is quoted, the flow ends politely.
    const pause = await conversation.external(() => quotesPaused(deps, "BUY"));
    if (pause.paused) {
      await current.reply(maintenanceNotice(current.t, pause), { parse_mode: "HTML" });
      return;
    }
    const outcome: QuoteOutcome = await conversation.external(() => createBuyQuote(deps, input));
    state.resolveFirst = false;
    if (outcome.ok) return showQuote(conversation, current, outcome.order);
    if (!(await onQuoteFailure(conversation, state, outcome))) return;
  }
}

/** Address, speed and amount, each asked only when missing; then the quote's input. */
async function quoteInputOf(conversation: FlowConversation, state: BuyState) {
  const address = state.address ?? (await askAddress(conversation, state.current));
  state.address = address;
  const speed = state.speed ?? (await askSpeed(conversation, state.current));
  state.speed = speed;
  let { amount, key } = state;
  if (!amount || !key) {
    const problem = state.problem;
    const typed = await askAmount(conversation, state.current, problem ? { problem } : {});
    amount = { minor: typed.minor, currency: typed.currency };
    key = `${state.current.chatId}:${typed.messageId}`;
    state.amount = amount;
    state.key = key;
    state.problem = undefined;
  }
  if (!state.resolveFirst || !state.reference) state.reference = customerReferenceFor(key);
  const { current } = state;
  await current.replyWithChatAction("typing").catch(() => undefined);
  return {
    key,
    customerReference: state.reference,
    resolveFirst: state.resolveFirst,
    chatId: current.chatId!,
    userId: current.from!.id,
    address,
    speed,
    amount,
  };
}

/** The quote card, then the wait for its Confirm. */
async function showQuote(
  conversation: FlowConversation,
  current: FlowContext,
  order: Extract<QuoteOutcome, { ok: true }>["order"],
): Promise<void> {
  const { deps } = current;
  const shownAt = await conversation.external(() => deps.now());
  const card = await current.reply(buyQuoteText({ order, nowMs: shownAt }, current.t, current.locale), {
    parse_mode: "HTML",
    reply_markup: buyQuoteKeyboard(order, current.t),
  });
  await conversation.external(() =>
    deps.store.orders.annotate(order.orderId, { quoteMessageId: card.message_id }),
  );
  await awaitConfirmation(conversation, current, order, { messageId: card.message_id, shownAt });
}

/** A failed quote: back to the address or the amount, the end, or "Try again" (true: the flow goes on). */
async function onQuoteFailure(
  conversation: FlowConversation,
  state: BuyState,
  outcome: Extract<QuoteOutcome, { ok: false }>,
): Promise<boolean> {
  const { current } = state;
  const route = routeQuoteFailure(outcome);
  const minSats = formatMoney(MIN_ONCHAIN_SATS, "BTCSAT", current.locale);
  if (route === "address") {
    await current.reply(current.t("buy:quote.address_rejected"));
    state.address = undefined;
    state.key = undefined;
    return true;
  }
  if (route === "amount") {
    state.problem = isBelowMinimum(outcome)
      ? current.t("buy:quote.below_minimum", { minSats })
      : failureText(current, outcome);
    state.key = undefined;
    return true;
  }
  if (route === "stop") {
    await current.reply(failureText(current, outcome), {
      parse_mode: "HTML",
      reply_markup: mainMenuKeyboard(current.t),
    });
    return false;
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
  state.key = `${pressed.chatId}:retry:${retry.message_id}`;
  state.resolveFirst = true;
  state.current = pressed;
  return true;
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
