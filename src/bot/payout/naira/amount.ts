import { InlineKeyboard } from "grammy";
import { type FlowIo, type Lazy, resolve } from "#src/bot/flow/flow-io.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { checkAmount } from "#src/bot/rules/payout-amount.js";
import { escapeHtml } from "#src/i18n/index.js";
import { currencyOfCountry, formatMoney } from "#src/money/index.js";
import { amountErrorText } from "../amount.ts";
import { payoutAction } from "../callback-data.ts";
import { actionButton } from "../keyboards.ts";
import { type Draft, withNotice } from "../prompts.ts";
import { payMethodLine, payMethodRow } from "./method.ts";
import type { NairaQuoteInput } from "./quote.ts";

type NairaAmount = NairaQuoteInput["amount"];
export type NairaAmountAnswer = { amount: NairaAmount; key: string } | "lightning" | "change_recipient";

/**
 * What was typed, in the screen's currency; an amount marked as the other one ("₦20,000" on the cedis screen, "GH₵ 50"
 * on the naira one) is taken as that. The minimum applies to amounts in the recipient's currency.
 */
function readAmount(
  text: string,
  mode: NairaAmount["currency"],
  target: Exclude<NairaAmount["currency"], "NGNKOBO">,
  minimum: number | undefined,
  locale: string,
) {
  const check = (currency: NairaAmount["currency"]) =>
    checkAmount(text, {
      mode: currency,
      target: currency,
      ...(currency === "NGNKOBO" || minimum === undefined ? {} : { minimum }),
      locale,
    });
  const checked = check(mode);
  const other = mode === "NGNKOBO" ? target : "NGNKOBO";
  return !checked.ok && checked.reason === "wrong_currency" && checked.detected === other
    ? check(other)
    : checked;
}

/**
 * The amount of a naira-funded payout: what the recipient gets (KSh, R, GH₵; the corridor's minimum checked here)
 * or the naira the payer transfers, fees included (the API checks what that buys). The amount's message id is the
 * idempotency key of its quote.
 */
export async function askNairaAmount(
  io: FlowIo,
  draft: Draft,
  minimum: number | undefined,
  notice?: string,
  startIn?: NairaAmount["currency"],
): Promise<NairaAmountAnswer> {
  const { t } = io;
  const target = currencyOfCountry(draft.country) as Exclude<NairaAmount["currency"], "NGNKOBO">;
  let mode: NairaAmount["currency"] = startIn ?? target;
  const minimumText = () =>
    minimum === undefined ? t("payout:country.min_usd") : formatMoney(minimum, target, io.locale);
  const screen = (problem?: Lazy<string>) => {
    const shownMode = mode;
    const text = () =>
      withNotice(
        problem === undefined ? undefined : resolve(problem),
        [
          t("payout:amount.to", { recipient: escapeHtml(draft.label) }),
          payMethodLine(t, "naira"),
          "",
          shownMode === "NGNKOBO"
            ? t("naira:amount.prompt_naira", { min: minimumText() })
            : t("payout:amount.prompt_fiat", {
                currency: t(`payout:currency.${target}`),
                min: minimumText(),
              }),
        ].join("\n"),
      );
    const toggleTo = shownMode === "NGNKOBO" ? target : "NGNKOBO";
    const keyboard = () =>
      InlineKeyboard.from([
        payMethodRow(t, "naira"),
        [
          InlineKeyboard.text(
            t("payout:button.toggle_fiat", { currency: t(`payout:currency.${toggleTo}`) }),
            payoutAction("toggle"),
          ),
        ],
        [actionButton(t, "change_recipient")],
        [cancelButton(t)],
      ]);
    return io.show(text, keyboard);
  };

  await screen(notice);
  for (;;) {
    const answer = await io.ask({ text: true, hint: () => t("payout:hint.text") });
    if (answer.kind === "button") {
      if (answer.data === payoutAction("change_recipient")) return "change_recipient";
      if (answer.data === payoutAction("pay_lightning")) return "lightning";
      if (answer.data === payoutAction("toggle")) {
        mode = mode === "NGNKOBO" ? target : "NGNKOBO";
        await screen();
      }
      continue;
    }
    const checked = readAmount(answer.text, mode, target, minimum, io.locale);
    if (checked.ok && (checked.currency === "NGNKOBO" || checked.currency === target)) {
      return {
        amount: { minor: checked.minor, currency: checked.currency },
        key: `${io.chatId}:${answer.messageId}`,
      };
    }
    const typedIn = mode;
    const refused = checked.ok
      ? ({ ok: false, reason: "wrong_currency", detected: checked.currency } as const)
      : checked;
    await screen(() => amountErrorText(io, refused, typedIn, minimumText()));
  }
}
