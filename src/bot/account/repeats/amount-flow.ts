import { maskedLabel } from "#src/bot/account/recipients.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { waitForText } from "#src/bot/flow/screen.js";
import { checkAmount } from "#src/bot/rules/payout-amount.js";
import { minimums } from "#src/bot/rules/payout-minimums.js";
import { quoteInput } from "#src/i18n/index.js";
import { type Country, type CurrencyCode, currencyOfCountry, formatMoney } from "#src/money/index.js";
import { RecipientLimitError, RepeatLimitError } from "#src/store/index.js";
import { createdText, createRepeat } from "./create.ts";
import { listScreen, nextDueAt, summaryText } from "./render.ts";
import type { Cadence } from "./schedule.ts";

export const REPEAT_AMOUNT_CONVERSATION = "repeat-amount";

/** { repeatId }: change that repeat's amount; { recipientId, cadence }: set up a new repeat to a saved recipient. */
export interface RepeatAmountArgs {
  repeatId?: string;
  recipientId?: string;
  cadence?: Cadence;
}

/**
 * Ask for a repeat's amount: local money the recipient gets, or sats the user pays ("21000 sats"), checked like
 * the payout flow's amount step (same parser, same minimum, same messages). Commands and buttons elsewhere keep
 * working while it waits; /cancel leaves it.
 */
export async function repeatAmountFlow(
  conversation: FlowConversation,
  ctx: FlowContext,
  args?: RepeatAmountArgs,
): Promise<void> {
  const userId = ctx.from?.id;
  if (userId === undefined || !args) return;
  const { deps } = ctx;
  const target = await conversation.external(() => targetOf(deps, args, userId));
  if (!target) {
    await ctx.reply(ctx.t("repeats:toast.not_found"));
    return;
  }
  const currency = currencyOfCountry(target.corridor);
  const loaded = await conversation.external(() => minimums(deps).catch(() => ({})));
  const minimum: number | undefined = (loaded as Partial<Record<string, number>>)[target.corridor];
  const min =
    minimum === undefined ? ctx.t("payout:country.min_usd") : formatMoney(minimum, currency, ctx.locale);
  const prompt = () =>
    ctx.t("repeats:amount.prompt", {
      label: maskedLabel(target.label),
      cadence: ctx.t(`repeats:cadence.${target.cadence}`),
      currency: ctx.t(`payout:currency.${currency}`),
      min,
    });
  await ctx.reply(prompt(), {
    parse_mode: "HTML",
    reply_markup: { inline_keyboard: [[cancelButton(ctx.t)]] },
  });

  for (;;) {
    const { ctx: current, text } = await waitForText(conversation, (other) =>
      other.reply(other.t("repeats:amount.hint")),
    );
    const checked = checkAmount(text, { mode: currency, target: currency, minimum, locale: current.locale });
    if (!checked.ok) {
      const error = current.t(`payout:amount.error.${checked.reason}`, {
        min,
        currency: current.t(`payout:currency.${currency}`),
        detected: checked.detected ? current.t(`payout:currency.${checked.detected}`) : "",
        foreign: quoteInput(checked.foreign ?? "", 8),
        context: checked.reason === "wrong_currency" && checked.foreign ? "foreign" : undefined,
      });
      await current.reply(`${error}\n\n${prompt()}`, { parse_mode: "HTML" });
      continue;
    }
    const amount = { amount: checked.minor, currency: checked.currency };
    const done = await conversation.external(() => saveAmount(deps, current, args, userId, amount));
    await current.reply(done, { parse_mode: "HTML" });
    return;
  }
}

/** What the amount is for (null: the repeat or the recipient is gone, or is not this user's). */
async function targetOf(
  deps: FlowContext["deps"],
  args: RepeatAmountArgs,
  userId: number,
): Promise<{ label: string; corridor: Country; cadence: Cadence } | null> {
  if (args.repeatId) {
    const repeat = await deps.store.repeats.get(args.repeatId);
    return repeat?.userId === userId
      ? { label: repeat.label, corridor: repeat.corridor, cadence: repeat.cadence }
      : null;
  }
  const recipient = args.recipientId ? await deps.store.recipients.get(userId, args.recipientId) : undefined;
  return recipient && args.cadence
    ? { label: recipient.label, corridor: recipient.corridor, cadence: args.cadence }
    : null;
}

/** The amount saved: the repeat's new amount, or the new repeat; the text that says what was done. */
async function saveAmount(
  deps: FlowContext["deps"],
  current: FlowContext,
  args: RepeatAmountArgs,
  userId: number,
  amount: { amount: number; currency: CurrencyCode },
): Promise<string> {
  const view = { t: current.t, locale: current.locale };
  try {
    if (args.repeatId) {
      const updated = await deps.store.repeats.update(args.repeatId, (repeat) =>
        repeat.userId === userId
          ? { repeat: { ...repeat, amount }, dueAt: repeat.paused ? undefined : nextDueAt(repeat) }
          : undefined,
      );
      if (!updated || updated.userId !== userId) return current.t("repeats:toast.not_found");
      const list = listScreen(view, await deps.store.repeats.list(userId));
      return `${current.t("repeats:done.amount", { summary: summaryText(view, updated) })}\n\n${list.text}`;
    }
    const recipient = await deps.store.recipients.get(userId, args.recipientId ?? "");
    if (!recipient || !args.cadence) return current.t("repeats:toast.not_found");
    return createdText(view, await createRepeat(current, recipient, args.cadence, amount));
  } catch (error) {
    if (error instanceof RepeatLimitError) return current.t("repeats:toast.limit", { limit: error.limit });
    if (error instanceof RecipientLimitError) return current.t("payout:save.limit", { limit: error.limit });
    throw error;
  }
}
