import { createConversation } from "@grammyjs/conversations";
import { type CallbackQueryContext, Composer, InlineKeyboard } from "grammy";
import { maskedLabel } from "#src/bot/account/recipients.js";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import { enterFlow, FLOWS, leaveFlows } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { methodOf } from "#src/corridors/index.js";
import { isNairaFunded } from "#src/orders/index.js";
import type { OrderRecord, Repeat } from "#src/store/index.js";
import { RecipientLimitError, RepeatLimitError } from "#src/store/index.js";
import { REPEAT_AMOUNT_CONVERSATION, type RepeatAmountArgs, repeatAmountFlow } from "./amount-flow.ts";
import { repeatData, repeatNewData } from "./callback-data.ts";
import { createdText, createRepeat } from "./create.ts";
import { createRepeatsJob } from "./job.ts";
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
    services: ({ deps, telegram, languageOf }) => {
      const job = createRepeatsJob({ deps, telegram, languageOf, logger: deps.logger });
      return {
        jobs: [
          {
            name: "repeat-sends",
            schedule: "after each reconcile tick",
            where: "workers",
            afterTick: true,
            run: () => job.sendDue(),
          },
        ],
      };
    },
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
  composer.chatType("private").command("repeats", async (ctx) => {
    const { text, keyboard } = listScreen(viewOf(ctx), await ctx.deps.store.repeats.list(ctx.from!.id));
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  });
  composer.callbackQuery(repeatNewData.filter(), onNewRepeat);
  composer.callbackQuery(repeatData.filter(), onRepeatAction);
  return composer;
}

type CallbackContext = CallbackQueryContext<BotContext>;
type RepeatPress = ReturnType<typeof repeatData.unpack>;

/** Setting up: from a saved recipient ("r", the amount asked next) or from a payout's receipt ("o"). */
async function onNewRepeat(ctx: CallbackContext): Promise<void> {
  const { cadence: asked, ref, source } = repeatNewData.unpack(ctx.callbackQuery.data);
  const cadence = asked === "week" || asked === "month" ? asked : undefined;
  if (source === "r") return newFromRecipient(ctx, ref, cadence);
  const userId = ctx.from.id;
  const { store } = ctx.deps;
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
    // A naira-funded order repeats what its recipient got, paid in naira again until the payer chooses otherwise.
    const naira = isNairaFunded(order);
    const amount = naira ? order.receive : (order.asked ?? order.receive);
    const result = await createRepeat(ctx, recipient, cadence, amount, naira ? "naira" : undefined);
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
}

/** 🔁 on a saved recipient: the cadence asked for first, then the amount (its own conversation). */
async function newFromRecipient(
  ctx: CallbackContext,
  ref: string,
  cadence: "week" | "month" | undefined,
): Promise<void> {
  const recipient = RECIPIENT_REF.test(ref)
    ? await ctx.deps.store.recipients.get(ctx.from.id, ref)
    : undefined;
  if (!recipient) {
    await ctx.answerCallbackQuery({ text: ctx.t("recipients:toast.not_found") });
    return;
  }
  await ctx.answerCallbackQuery();
  if (!cadence) {
    const source = "r";
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
}

/** Managing: the buttons of the due card ("c") and of the list ("l"). */
async function onRepeatAction(ctx: CallbackContext): Promise<void> {
  const press = repeatData.unpack(ctx.callbackQuery.data);
  const { action, id, where } = press;
  const { store } = ctx.deps;
  const found = await store.repeats.get(id);
  if (!found || found.userId !== ctx.from.id) {
    await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.not_found") });
    if (where === "c") await ctx.editMessageReplyMarkup().catch(() => undefined);
    else await refreshList(ctx);
    return;
  }
  const view = viewOf(ctx);
  if (action === "quote") return quoteRepeat(ctx, found, where);
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
  if (change) await changeRepeat(ctx, press, change);
}

/** "Get quote": the payout flow for the repeat's recipient and amount, up to the normal quote card. */
async function quoteRepeat(ctx: CallbackContext, found: Repeat, where: RepeatPress["where"]): Promise<void> {
  const recipient = await ctx.deps.store.recipients.get(ctx.from.id, found.recipientId);
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
    repeatId: found.id,
  });
}

/** Skip (from the list), pause or resume, and the note on the card or the list saying what changed. */
async function changeRepeat(
  ctx: CallbackContext,
  { action, id, where }: RepeatPress,
  change: "skip" | "pause" | "resume",
): Promise<void> {
  const now = ctx.deps.now();
  const updated = await ctx.deps.store.repeats.update(id, (repeat) => changed(repeat, change, now));
  if (!updated) {
    await ctx.answerCallbackQuery({ text: ctx.t("repeats:toast.not_found") });
    return;
  }
  await ctx.answerCallbackQuery({
    text: ctx.t(`repeats:toast.${action === "skip" ? "skipped" : action === "pause" ? "paused" : "resumed"}`),
  });
  const view = viewOf(ctx);
  const summary = summaryText(view, updated);
  const state = updated.paused
    ? ctx.t("repeats:list.paused")
    : ctx.t("repeats:list.next", { when: whenText(view, updated, nextDueAt(updated)) });
  const note = `${ctx.t(`repeats:done.${action}`, { summary })}\n${state}`;
  if (where === "c") await edit(ctx, note);
  else await refreshList(ctx, note);
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
