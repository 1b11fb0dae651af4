import { createConversation } from "@grammyjs/conversations";
import { Composer, InlineKeyboard } from "grammy";
import type { InlineQueryResultArticle } from "grammy/types";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import { enterFlow, FLOWS, leaveFlows } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import type { MoneyRequest, RequestState } from "#src/store/index.js";
import { requestData } from "./callback-data.ts";
import { inlineCard, requestFacts } from "./card.ts";
import { REQUEST_CONVERSATION, requestFlow } from "./flow.ts";

/** start=req_<token>: pay a request; start=request: make one (the inline mode's "new request" button). */
const PAY_LINK = /^req_([A-Za-z0-9_-]{22})$/;
const NEW_LINK = /^request$/;
/**
 * "request <token>" (the card's Share button) shows just that request; any other query ("request", nothing, a typo)
 * lists the user's open requests: inline mode has nothing else to offer.
 */
const ONE_REQUEST = /^\s*request\s+([A-Za-z0-9_-]{22})\s*$/i;
const INLINE_RESULTS = 10;
const LIST_SIZE = 10;

/** Money requests: /request, /requests, the menu entry, the payer's link, the card's buttons and inline mode. */
export function requestsFeature(): Feature {
  return {
    name: "requests",
    conversations: [createConversation<BotContext, FlowContext>(requestFlow, { id: REQUEST_CONVERSATION })],
    composer: requestsComposer(),
  };
}

async function enterRequest(ctx: BotContext): Promise<void> {
  await leaveFlows(ctx);
  await ctx.conversation.enter(REQUEST_CONVERSATION);
}

function requestsComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const privateChats = composer.chatType("private");

  // Before welcome's /start: only req_<token> and "request" payloads are ours.
  privateChats.command("start", async (ctx, next) => {
    const payload = ctx.match.trim();
    const pay = PAY_LINK.exec(payload);
    if (pay?.[1]) return enterFlow(ctx, FLOWS.payout, { requestToken: pay[1] });
    if (NEW_LINK.test(payload)) return enterRequest(ctx);
    return next();
  });

  privateChats.command("request", (ctx) => enterRequest(ctx));
  composer.callbackQuery(menuData.filter({ action: "request" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await enterRequest(ctx);
  });

  privateChats.command("requests", async (ctx) => {
    const list = await renderList(ctx);
    await ctx.reply(list.text, { parse_mode: "HTML", reply_markup: list.keyboard });
  });

  composer.callbackQuery(requestData.filter({ action: "cancel" }), async (ctx) => {
    const { token } = requestData.unpack(ctx.callbackQuery.data);
    const { deps } = ctx;
    const request = await deps.store.requests.get(token);
    if (!request || request.userId !== ctx.from.id) {
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
      return;
    }
    const result = await deps.store.requests.cancel(request, deps.now());
    await ctx.answerCallbackQuery({
      text: ctx.t(`request:cancel.${result}`),
      show_alert: result === "pending",
    });
    if (result === "pending") return;
    const message = ctx.callbackQuery.message;
    if (message && "photo" in message && message.photo) {
      // The card: its buttons go, its caption stays (the link no longer pays anything).
      await ctx.editMessageReplyMarkup().catch(() => undefined);
      if (result === "cancelled") {
        await ctx.reply(ctx.t("request:cancel.cancelled"), { reply_markup: mainMenuKeyboard(ctx.t) });
      }
      return;
    }
    const list = await renderList(ctx);
    await ctx
      .editMessageText(list.text, { parse_mode: "HTML", reply_markup: list.keyboard })
      .catch(() => undefined);
  });

  composer.on("inline_query", async (ctx) => {
    const { deps } = ctx;
    const only = ONE_REQUEST.exec(ctx.inlineQuery.query)?.[1];
    const listed = await deps.store.requests.listForUser(ctx.from.id, deps.now(), INLINE_RESULTS);
    const results: InlineQueryResultArticle[] = listed
      .filter(({ request, status }) => status.state === "open" && (!only || request.token === only))
      .map(({ request }) => inlineCard(request, ctx.t, ctx.locale, ctx.me.username));
    await ctx.answerInlineQuery(results, {
      cache_time: 0,
      is_personal: true,
      button: { text: ctx.t("request:button.new"), start_parameter: "request" },
    });
  });

  // Telegram reports a sent inline result only where the bot's inline feedback is on: counted in the log.
  composer.on("chosen_inline_result", (ctx) => {
    ctx.deps.logger.info({ userId: ctx.from.id }, "money request card shared");
  });

  return composer;
}

/** /requests: the newest requests with what each is now; open ones get a Cancel button. */
async function renderList(ctx: BotContext): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const { deps, t, locale } = ctx;
  const listed = await deps.store.requests.listForUser(ctx.from!.id, deps.now(), LIST_SIZE);
  if (listed.length === 0) return { text: t("request:list.empty"), keyboard: mainMenuKeyboard(t) };
  const keyboard = new InlineKeyboard();
  const lines = listed.map(({ request, status }) => {
    const facts = requestFacts(request, locale);
    if (status.state === "open") {
      keyboard
        .text(
          t("request:list.cancel", { amount: facts.amount }),
          requestData.pack({ action: "cancel", token: request.token }),
        )
        .row();
    }
    return t("request:list.line", { ...facts, state: stateText(ctx, request, status) });
  });
  return { text: [t("request:list.title"), "", ...lines].join("\n"), keyboard };
}

function stateText(ctx: BotContext, request: MoneyRequest, status: RequestState): string {
  return ctx.t(`request:state.${status.state}`, { until: requestFacts(request, ctx.locale).until });
}
