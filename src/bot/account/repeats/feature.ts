import { createConversation } from "@grammyjs/conversations";
import { Composer, InlineKeyboard } from "grammy";
import { maskedLabel } from "#src/bot/account/recipients.js";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import { enterFlow, FLOWS, leaveFlows } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { methodOf } from "#src/corridors/index.js";
import type { OrderRecord, Repeat } from "#src/store/index.js";
import { RecipientLimitError, RepeatLimitError } from "#src/store/index.js";
import { REPEAT_AMOUNT_CONVERSATION, type RepeatAmountArgs, repeatAmountFlow } from "./amount-flow.ts";
import { repeatData, repeatNewData } from "./callback-data.ts";
import { createdText, createRepeat } from "./create.ts";
import {
  amountCurrency,
  listScreen,
  nextDueAt,
  scheduleOf,
  summaryText,
  type View,
  whenText,
} from "./render.ts";
import { firstAfter } from "./schedule.ts";

/**
 * Repeat sends: set up from a receipt or a saved recipient, listed and managed with /repeats, and the buttons of
 * the due card the scheduled job sends (./job.ts). "Get quote" enters the payout flow for the repeat's recipient
 * and amount and lands on the normal quote card: nothing is paid without the user's Confirm.
 */
export function repeatsFeature(): Feature {
  return {
    name: "repeats",
    conversations: [
      createConversation<BotContext, FlowContext>(repeatAmountFlow, { id: REPEAT_AMOUNT_CONVERSATION }),
    ],
    composer: repeatsComposer(),
  };
}

/** A saved recipient's id, as the 🔁 button of /recipients carries it. */
const RECIPIENT_REF = /^[0-9a-f]{8}$/;

const viewOf = (ctx: BotContext): View => ({ t: ctx.t, locale: ctx.locale });

/** The offer under a payout's receipt: "Send this again every week / month?". */
export async function offerRepeat(ctx: BotContext, order: OrderRecord): Promise<void> {
  if (order.kind !== "payout" || !order.beneficiary || !methodOf(order.beneficiary)) return;
  const keyboard = new InlineKeyboard()
    .text(
      ctx.t("repeats:offer.week"),
      repeatNewData.pack({ cadence: "week", ref: order.orderId, source: "o" }),
    )
    .text(
      ctx.t("repeats:offer.month"),
      repeatNewData.pack({ cadence: "month", ref: order.orderId, source: "o" }),
    );
  await ctx.reply(ctx.t("repeats:offer.text"), { parse_mode: "HTML", reply_markup: keyboard });
}

async function edit(ctx: BotContext, text: string, keyboard?: InlineKeyboard): Promise<void> {
  await ctx
    .editMessageText(text, { parse_mode: "HTML", ...(keyboard ? { reply_markup: keyboard } : {}) })
    .catch((error: unknown) => {
      if (!/message is not modified/i.test(String(error))) throw error;
    });
}

function repeatsComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const showList = async (ctx: BotContext) => {
    const { text, keyboard } = listScreen(viewOf(ctx), await ctx.deps.store.repeats.list(ctx.from!.id));
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  };
  composer.chatType("private").command("repeats", showList);

  // Setting up.
  composer.callbackQuery(repeatNewData.filter(), async (ctx) => {
    const { cadence: asked, ref, source } = repeatNewData.unpack(ctx.callbackQuery.data);
    const cadence = asked === "week" || asked === "month" ? asked : undefined;
    const userId = ctx.from.id;
    const { store } = ctx.deps;
    if (source === "r") {
      const recipient = RECIPIENT_REF.test(ref) ? await store.recipients.get(userId, ref) : undefined;
      if (!recipient) {
        await ctx.answerCallbackQuery({ text: ctx.t("recipients:toast.not_found") });
        return;
      }
      await ctx.answerCallbackQuery();
      if (!cadence) {
        const keyboard = new InlineKeyboard()
          .text(ctx.t("repeats:offer.week"), repeatNewData.pack({ cadence: "week", ref, source }))
          .text(ctx.t("repeats:offer.month"), repeatNewData.pack({ cadence: "month", ref, source }));
        await ctx.reply(ctx.t("repeats:offer.recipient", { label: maskedLabel(recipient.label) }), {
          parse_mode: "HTML",
          reply_markup: keyboard,
        });
        return;
      }
      if (ctx.callbackQuery.message) await ctx.editMessageReplyMarkup().catch(() => undefined);
      const args: RepeatAmountArgs = { recipientId: recipient.id, cadence };
      await leaveFlows(ctx);
      await ctx.conversation.enter(REPEAT_AMOUNT_CONVERSATION, args);
      return;
    }
    const order = await store.orders.get(ref);
    const kind = order?.beneficiary ? methodOf(order.beneficiary) : undefined;
    if (!order?.beneficiary || order.userId !== userId || order.kind !== "payout" || !kind || !cadence) {
      await ctx.answerCallbackQuery({ text: ctx.t("payout:stale") });
      return;
    }
    try {
      const recipient = await store.recipients.save({
        userId,
        corridor: order.corridor,
        method: kind.method,
        label: order.recipientLabel,
        details: order.beneficiary,
      });
      const result = await createRepeat(ctx, recipient, cadence, order.asked ?? order.receive);
      await ctx.answerCallbackQuery({
        text: ctx.t(result.created ? "repeats:toast.created" : "repeats:toast.exists"),
      });
      await edit(ctx, createdText(viewOf(ctx), result));
    } catch (error) {
      const limit =
        error instanceof RepeatLimitError || error instanceof RecipientLimitError ? error.limit : undefined;
      if (limit === undefined) throw error;
      const key = error instanceof RepeatLimitError ? "repeats:toast.limit" : "payout:save.limit";
      await ctx.answerCallbackQuery({ text: ctx.t(key, { limit }), show_alert: true });
    }
  });

  // Managing: the due card ("c") and the list ("l").
  composer.callbackQuery(repeatData.filter(), async (ctx) => {
    const { action, id, where } = repeatData.unpack(ctx.callbackQuery.data);
    const { store } = ctx.deps;
    const userId = ctx.from.id;
    const found = await store.repeats.get(id);
    if (!found || found.userId !== userId) {
      await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.not_found") });
      if (where === "c") await ctx.editMessageReplyMarkup().catch(() => undefined);
      else await refreshList(ctx);
      return;
    }
    const view = viewOf(ctx);
    const now = ctx.deps.now();

    if (action === "quote") {
      const recipient = await store.recipients.get(userId, found.recipientId);
      const currency = amountCurrency(found);
      if (!recipient || !currency) {
        await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.recipient_gone"), show_alert: true });
        return;
      }
      await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.quoting") });
      if (where === "c") await ctx.editMessageReplyMarkup().catch(() => undefined);
      await enterFlow(ctx, FLOWS.payout, {
        recipientToken: recipient.token,
        amount: { minor: found.amount.amount, currency },
        quoteKey: ctx.callbackQuery.id,
      });
      return;
    }
    if (action === "amount") {
      await ctx.answerCallbackQuery();
      const args: RepeatAmountArgs = { repeatId: id };
      await leaveFlows(ctx);
      await ctx.conversation.enter(REPEAT_AMOUNT_CONVERSATION, args);
      return;
    }
    if (action === "stop") {
      await store.repeats.remove(found);
      await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.stopped") });
      const note = ctx.t("repeats:done.stop", { summary: summaryText(view, found) });
      if (where === "c") await edit(ctx, note);
      else await refreshList(ctx, note);
      return;
    }
    if (action === "skip" && where === "c") {
      // The schedule moved on when the card was sent: skipping this time changes nothing but the card.
      await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.skipped") });
      const next = found.paused
        ? ctx.t("repeats:list.paused")
        : ctx.t("repeats:list.next", { when: whenText(view, found, nextDueAt(found)) });
      await edit(ctx, `${ctx.t("repeats:done.skip_card", { summary: summaryText(view, found) })}\n${next}`);
      return;
    }
    const change = action === "skip" || action === "pause" || action === "resume" ? action : undefined;
    if (!change) return;
    const updated = await store.repeats.update(id, (repeat) => changed(repeat, change, now));
    if (!updated) {
      await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.not_found") });
      return;
    }
    await ctx.answerCallbackQuery({
      text: ctx.t(
        `repeats:toast.${action === "skip" ? "skipped" : action === "pause" ? "paused" : "resumed"}`,
      ),
    });
    const summary = summaryText(view, updated);
    const state = updated.paused
      ? ctx.t("repeats:list.paused")
      : ctx.t("repeats:list.next", { when: whenText(view, updated, nextDueAt(updated)) });
    const note = `${ctx.t(`repeats:done.${action}`, { summary })}\n${state}`;
    if (where === "c") await edit(ctx, note);
    else await refreshList(ctx, note);
  });

  return composer;
}

/** Skip the next date, pause or resume; resuming never sends what fell due while paused (next future date). */
function changed(
  repeat: Repeat,
  action: "skip" | "pause" | "resume",
  now: number,
): { repeat: Repeat; dueAt: number | undefined } | undefined {
  const schedule = scheduleOf(repeat);
  if (action === "pause")
    return repeat.paused ? undefined : { repeat: { ...repeat, paused: true }, dueAt: undefined };
  if (action === "resume") {
    if (!repeat.paused) return undefined;
    const next = { ...repeat, paused: false, next: firstAfter(schedule, now, repeat.next) };
    return { repeat: next, dueAt: nextDueAt(next) };
  }
  const next = { ...repeat, next: firstAfter(schedule, now, repeat.next + 1) };
  return { repeat: next, dueAt: repeat.paused ? undefined : nextDueAt(next) };
}

async function refreshList(ctx: BotContext, note?: string): Promise<void> {
  const { text, keyboard } = listScreen(viewOf(ctx), await ctx.deps.store.repeats.list(ctx.from!.id), note);
  await edit(ctx, text, keyboard);
}
