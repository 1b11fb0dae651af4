import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { currencyOfCountry, formatMoney } from "#src/money/index.js";
import { payoutAction } from "../callback-data.ts";
import type { AmountChoice, Draft } from "../prompts.ts";
import { NAIRA_FUNDED } from "./quote.ts";

/**
 * "How will you pay?": ⚡ bitcoin over Lightning or 🏦 naira by bank transfer, the chosen one ticked. On the amount
 * screen of a Kenyan, South African or Ghanaian payout, and as its own screen before the quote of an amount that is
 * already set (a money request, a repeat send), where the payer chooses and a repeat remembers the choice.
 */
export type PayMethod = "lightning" | "naira";

/** The naira-funded part of the flow (src/bot/payout/naira/flow.ts), as the amount screen hands over to it. */
export type NairaStep = (
  io: FlowIo,
  draft: Draft,
  lightningMinimum: number | undefined,
  notice?: string,
) => Promise<"done" | "cancelled" | "lightning" | "change_recipient">;

/** The amount screen's choice: a payout the user types an amount for (a money request has its own screen). */
export function offersNaira(draft: Pick<Draft, "country" | "requestId">): boolean {
  return NAIRA_FUNDED.includes(draft.country) && !draft.requestId;
}

/** An amount already set (a request's, a repeat's) may be paid in naira when it is what the recipient gets. */
export function offersNairaFor(draft: Pick<Draft, "country">, amount: AmountChoice): boolean {
  return NAIRA_FUNDED.includes(draft.country) && amount.currency === currencyOfCountry(draft.country);
}

export function payMethodLine(t: TFunction, chosen: PayMethod): string {
  return t("naira:method.question", { method: t(`naira:method.${chosen}`) });
}

export function payMethodRow(t: TFunction, chosen: PayMethod): InlineKeyboardButton[] {
  const button = (method: PayMethod) =>
    InlineKeyboard.text(
      `${method === chosen ? "✅ " : ""}${t(`naira:method.${method}`)}`,
      payoutAction(method === "naira" ? "pay_naira" : "pay_lightning"),
    );
  return [button("lightning"), button("naira")];
}

/** The payer's choice for an amount already set; `last` (how they paid it before) is ticked. */
export async function askPayMethod(
  io: FlowIo,
  draft: Draft,
  amount: AmountChoice,
  last: PayMethod,
): Promise<PayMethod> {
  const { t } = io;
  await io.show(
    () =>
      t("naira:method.choose", {
        recipient: escapeHtml(draft.label),
        amount: formatMoney(amount.minor, amount.currency, io.locale),
      }),
    () => InlineKeyboard.from([payMethodRow(t, last), [cancelButton(t)]]),
  );
  for (;;) {
    const answer = await io.ask({ hint: () => t("payout:hint.buttons") });
    if (answer.kind !== "button") continue;
    if (answer.data === payoutAction("pay_naira")) return "naira";
    if (answer.data === payoutAction("pay_lightning")) return "lightning";
  }
}
