import { userClock } from "#src/bot/account/clock.js";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import type { Country } from "#src/money/index.js";
import { COUNTRY_TIME_ZONES } from "#src/money/index.js";
import type { Recipient, Repeat } from "#src/store/index.js";
import { nextDueAt, summaryText, type View, whenText } from "./render.ts";
import { type Cadence, dayIn, dueAt } from "./schedule.ts";

/** Whose clock a new repeat runs on: the one the user reads times in (their choice, else where they send). */
async function clockFor(ctx: BotContext | FlowContext, corridor: Country): Promise<Country> {
  const user = await ctx.deps.store.users.get(ctx.from!.id);
  return userClock({ chosen: user?.clock, recentCorridor: corridor, language: ctx.language });
}

/**
 * Set up a repeat to a saved recipient, counted from today in the user's clock (the API's clock, so local mode's
 * `:advance` moves it). An identical repeat that exists already is returned as it is.
 */
export async function createRepeat(
  ctx: BotContext | FlowContext,
  recipient: Recipient,
  cadence: Cadence,
  amount: { amount: number; currency: string },
  payWith?: Repeat["payWith"],
): Promise<{ repeat: Repeat; created: boolean }> {
  const { deps } = ctx;
  const now = deps.now();
  const clock = await clockFor(ctx, recipient.corridor);
  const anchor = dayIn(now, COUNTRY_TIME_ZONES[clock]);
  const first = dueAt({ cadence, anchor, zone: COUNTRY_TIME_ZONES[clock] }, 1);
  return deps.store.repeats.create(
    {
      userId: recipient.userId,
      chatId: ctx.chat?.id ?? recipient.userId,
      recipientId: recipient.id,
      corridor: recipient.corridor,
      label: recipient.label,
      amount,
      cadence,
      anchor,
      clock,
      ...(payWith ? { payWith } : {}),
    },
    first,
    new Date(now).toISOString(),
  );
}

/** "Repeat set up: …, first date …" (or "already set up"). */
export function createdText(view: View, result: { repeat: Repeat; created: boolean }): string {
  const { repeat } = result;
  return [
    view.t(result.created ? "repeats:created" : "repeats:exists"),
    summaryText(view, repeat),
    view.t("repeats:list.next", { when: whenText(view, repeat, nextDueAt(repeat)) }),
    "",
    view.t("repeats:manage"),
  ].join("\n");
}
