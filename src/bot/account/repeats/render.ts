import { InlineKeyboard } from "grammy";
import { maskedLabel } from "#src/bot/account/recipients.js";
import type { TFunction } from "#src/i18n/index.js";
import {
  COUNTRY_FLAGS,
  COUNTRY_TIME_ZONES,
  type CurrencyCode,
  formatDateTime,
  formatMoney,
  isCurrencyCode,
} from "#src/money/index.js";
import type { Repeat } from "#src/store/index.js";
import { type RepeatAction, repeatData } from "./callback-data.ts";
import { dueAt, type Schedule } from "./schedule.ts";

/** What a rendering needs: the user's words and number/date formats. */
export interface View {
  t: TFunction;
  locale: string;
}

export const scheduleOf = (repeat: Pick<Repeat, "cadence" | "anchor" | "clock">): Schedule => ({
  cadence: repeat.cadence,
  anchor: repeat.anchor,
  zone: COUNTRY_TIME_ZONES[repeat.clock],
});

/** The next due time of an active repeat (API clock, ms). */
export const nextDueAt = (repeat: Repeat) => dueAt(scheduleOf(repeat), repeat.next);

/** The stored currency, checked (a record is data from Redis). */
export function amountCurrency(repeat: Pick<Repeat, "amount">): CurrencyCode | undefined {
  return isCurrencyCode(repeat.amount.currency) ? repeat.amount.currency : undefined;
}

/** "₦50,000.00 (they receive)" or "21,000 sats (you pay)". */
function amountText(view: View, repeat: Pick<Repeat, "amount">): string {
  const currency = amountCurrency(repeat) ?? "BTCSAT";
  const amount = formatMoney(repeat.amount.amount, currency, view.locale);
  return view.t(currency === "BTCSAT" ? "repeats:amount.pay" : "repeats:amount.receive", { amount });
}

export const whenText = (view: View, repeat: Repeat, ms: number) =>
  formatDateTime(ms, view.locale, repeat.clock);

const cadenceText = (view: View, repeat: Pick<Repeat, "cadence">) =>
  view.t(`repeats:cadence.${repeat.cadence}`);

/** One line saying who, how much and how often: the top of every repeat message. */
export function summaryText(view: View, repeat: Repeat): string {
  return view.t("repeats:summary", {
    flag: COUNTRY_FLAGS[repeat.corridor],
    label: maskedLabel(repeat.label),
    amount: amountText(view, repeat),
    cadence: cadenceText(view, repeat),
  });
}

/** The due card: the occurrence that is due, what Get quote does, and the next date. */
export function dueCardText(
  view: View,
  repeat: Repeat,
  occurrence: { dueAt: number; missed: number; nextAt: number },
): string {
  return [
    view.t("repeats:card.title"),
    summaryText(view, repeat),
    view.t("repeats:card.due", { when: whenText(view, repeat, occurrence.dueAt) }),
    ...(occurrence.missed > 0 ? [view.t("repeats:card.missed")] : []),
    "",
    view.t("repeats:card.explain"),
    view.t("repeats:card.next", { when: whenText(view, repeat, occurrence.nextAt) }),
  ].join("\n");
}

const button = (view: View, action: RepeatAction, repeat: Repeat, where: "c" | "l", label?: string) =>
  InlineKeyboard.text(
    label ?? view.t(`repeats:button.${action}`),
    repeatData.pack({ action, id: repeat.id, where }),
  );

export function dueCardKeyboard(view: View, repeat: Repeat): InlineKeyboard {
  return InlineKeyboard.from([
    [button(view, "quote", repeat, "c")],
    [button(view, "skip", repeat, "c"), button(view, "amount", repeat, "c")],
    [button(view, "pause", repeat, "c"), button(view, "stop", repeat, "c")],
  ]);
}

/** /repeats: every repeat with its next date (or paused), and a row of buttons each. */
export function listScreen(
  view: View,
  repeats: Repeat[],
  note?: string,
): { text: string; keyboard?: InlineKeyboard } {
  const head = note ? [note, ""] : [];
  if (repeats.length === 0) return { text: [...head, view.t("repeats:list.empty")].join("\n") };
  const keyboard = new InlineKeyboard();
  const lines = repeats.map((repeat, index) => {
    const n = index + 1;
    const pauseOrResume = repeat.paused ? "resume" : "pause";
    keyboard.row(
      button(view, "quote", repeat, "l", view.t("repeats:button_n.quote", { n })),
      button(view, "skip", repeat, "l", view.t("repeats:button_n.skip", { n })),
      button(view, pauseOrResume, repeat, "l", view.t(`repeats:button_n.${pauseOrResume}`, { n })),
      button(view, "amount", repeat, "l", view.t("repeats:button_n.amount", { n })),
      button(view, "stop", repeat, "l", view.t("repeats:button_n.stop", { n })),
    );
    const state = repeat.paused
      ? view.t("repeats:list.paused")
      : view.t("repeats:list.next", { when: whenText(view, repeat, nextDueAt(repeat)) });
    return `${n}. ${summaryText(view, repeat)}\n   ${state}`;
  });
  return {
    text: [...head, view.t("repeats:list.title"), "", ...lines, "", view.t("repeats:list.hint")].join("\n"),
    keyboard,
  };
}
