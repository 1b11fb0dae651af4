import { InlineKeyboard } from "grammy";
import { type FlowIo, type Lazy, resolve } from "#src/bot/flow/flow-io.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { type AmountCheck, checkAmount } from "#src/bot/rules/payout-amount.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";
import { type CurrencyCode, currencyOfCountry, formatMoney } from "#src/money/index.js";
import { payoutAction } from "./callback-data.ts";
import { actionButton } from "./keyboards.ts";
import { type NairaStep, offersNaira, payMethodLine, payMethodRow } from "./naira/method.ts";
import { type AmountChoice, type Draft, withNotice } from "./prompts.ts";

/**
 * Step 3: how much, in the local currency (what the recipient gets) or in sats (what you pay) — a toggle. The
 * amount's message id is the idempotency key of the quote it leads to.
 */
type AmountAnswer = { amount: AmountChoice; key: string } | "change_recipient" | "ended";

export async function askAmount(
  io: FlowIo,
  draft: Draft,
  minimum: number | undefined,
  notice?: string,
  startIn?: CurrencyCode,
  /** The naira-funded part of the flow, for "How will you pay?" (NGNKOBO `startIn` opens it at once). */
  payInNaira?: NairaStep,
): Promise<AmountAnswer> {
  const { t } = io;
  const target = currencyOfCountry(draft.country);
  let mode: CurrencyCode = startIn === "BTCSAT" ? "BTCSAT" : target;
  // Kenya, South Africa and Ghana may also be paid in naira: "How will you pay?" on this screen.
  const naira = offersNaira(draft) ? payInNaira : undefined;
  const minimumText = () =>
    minimum === undefined ? t("payout:country.min_usd") : formatMoney(minimum, target, io.locale);

  // Rendered only when the screen is sent (not on replay); `shownMode` is the toggle at the time of the call.
  const screen = (problem?: Lazy<string>) => {
    const shownMode = mode;
    const text = () => {
      const prompt = [
        t("payout:amount.to", { recipient: escapeHtml(draft.label) }),
        ...(naira ? [payMethodLine(t, "lightning")] : []),
        "",
        shownMode === "BTCSAT"
          ? t("payout:amount.prompt_sats", { min: minimumText() })
          : t("payout:amount.prompt_fiat", { currency: t(`payout:currency.${target}`), min: minimumText() }),
      ].join("\n");
      return withNotice(problem === undefined ? undefined : resolve(problem), prompt);
    };
    const keyboard = () => {
      const toggle = InlineKeyboard.text(
        shownMode === "BTCSAT"
          ? t("payout:button.toggle_fiat", { currency: t(`payout:currency.${target}`) })
          : t("payout:button.toggle_sats"),
        payoutAction("toggle"),
      );
      const method = naira ? [payMethodRow(t, "lightning")] : [];
      return InlineKeyboard.from([
        ...method,
        [toggle],
        [actionButton(t, "change_recipient")],
        [cancelButton(t)],
      ]);
    };
    return io.show(text, keyboard);
  };

  const inNaira = naira && startIn === "NGNKOBO";
  const opened = inNaira ? await viaNaira(naira, io, draft, minimum, notice) : undefined;
  if (opened) return opened;
  await screen(inNaira ? undefined : notice);
  for (;;) {
    const answer = await io.ask({ text: true, hint: () => t("payout:hint.text") });
    if (answer.kind === "button") {
      if (answer.data === payoutAction("change_recipient")) return "change_recipient";
      if (naira && answer.data === payoutAction("pay_naira")) {
        const after = await viaNaira(naira, io, draft, minimum);
        if (after) return after;
        await screen();
      }
      if (answer.data === payoutAction("toggle")) {
        mode = mode === "BTCSAT" ? target : "BTCSAT";
        await screen();
      }
      continue;
    }
    const checked = checkAmount(answer.text, { mode, target, minimum, locale: io.locale });
    if (checked.ok) {
      return {
        amount: { minor: checked.minor, currency: checked.currency },
        key: `${io.chatId}:${answer.messageId}`,
      };
    }
    const typedIn = mode;
    await screen(() => amountErrorText(io, checked, typedIn, minimumText()));
  }
}

/**
 * The naira part of the flow, from this screen: it runs to its end ("ended"), or comes back here (⚡) or to the
 * recipient.
 */
async function viaNaira(
  step: NairaStep,
  io: FlowIo,
  draft: Draft,
  minimum: number | undefined,
  notice?: string,
): Promise<"ended" | "change_recipient" | undefined> {
  const after = await step(io, draft, minimum, notice);
  return after === "lightning" ? undefined : after === "change_recipient" ? after : "ended";
}

/** Why a typed amount was refused (`typedIn`: the currency the screen asked for). */
export function amountErrorText(
  io: FlowIo,
  checked: Extract<AmountCheck, { ok: false }>,
  typedIn: CurrencyCode,
  minimum: string,
): string {
  const { t } = io;
  return t(`payout:amount.error.${checked.reason}`, {
    min: minimum,
    currency: t(`payout:currency.${typedIn}`),
    detected: checked.detected ? t(`payout:currency.${checked.detected}`) : "",
    foreign: quoteInput(checked.foreign ?? "", 8),
    context: checked.reason === "wrong_currency" && checked.foreign ? "foreign" : undefined,
  });
}
