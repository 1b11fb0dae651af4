import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import type { BankEntry } from "#src/bot/rules/banks.js";
import { POPULAR_BANKS } from "#src/bot/rules/banks.js";
import type { TFunction } from "#src/i18n/index.js";
import type { Country } from "#src/money/index.js";
import { COUNTRY_FLAGS } from "#src/money/index.js";
import { requoteCallbackData } from "#src/orders/index.js";
import {
  type PayoutAction,
  payoutAction,
  payoutBankData,
  payoutConfirmData,
  payoutCountryData,
  payoutKnownData,
  payoutMethodData,
  payoutNetworkData,
  payoutSaveData,
  payoutSimulateData,
  payoutZaBankData,
} from "./callback-data.ts";
import { PAYOUT_COUNTRIES } from "./quote-orders.ts";
import { type Voice, voiced } from "./voice.ts";

/** Keyboards of the payout flow. Every flow screen ends with the ❌ button (handled by the cancel feature). */

type Button = InlineKeyboardButton.CallbackButton;

function rows(buttons: Button[], perRow: number): Button[][] {
  const result: Button[][] = [];
  for (let index = 0; index < buttons.length; index += perRow)
    result.push(buttons.slice(index, index + perRow));
  return result;
}

/** An action's button; "that's them" and "change recipient" speak to a requester about their own details. */
export function actionButton(t: TFunction, action: PayoutAction, voice: Voice = "sender"): Button {
  const key =
    action === "name_ok" || action === "change_recipient"
      ? voiced(voice, `button.${action}`)
      : `payout:button.${action}`;
  return InlineKeyboard.text(t(key), payoutAction(action));
}

/** Action buttons, one row each, then ❌. */
export function actionsKeyboard(
  t: TFunction,
  actions: PayoutAction[],
  voice: Voice = "sender",
): InlineKeyboard {
  return InlineKeyboard.from([
    ...actions.map((action) => [actionButton(t, action, voice)]),
    [cancelButton(t)],
  ]);
}

export function cancelOnlyKeyboard(t: TFunction): InlineKeyboard {
  return InlineKeyboard.from([[cancelButton(t)]]);
}

export function countryKeyboard(t: TFunction): InlineKeyboard {
  const buttons = PAYOUT_COUNTRIES.map((country: Country) => [
    InlineKeyboard.text(
      t("payout:country.button", {
        flag: COUNTRY_FLAGS[country],
        name: t(`payout:country.names.${country}`),
        methods: t(`payout:country.short.${country}`),
      }),
      payoutCountryData.pack({ country }),
    ),
  ]);
  return InlineKeyboard.from([...buttons, [cancelButton(t)]]);
}

export function kenyaMethodKeyboard(t: TFunction): InlineKeyboard {
  const method = (name: "phone" | "bill" | "till") =>
    InlineKeyboard.text(t(`payout:ke.method.${name}`), payoutMethodData.pack({ method: name }));
  return InlineKeyboard.from([[method("phone")], [method("bill"), method("till")], [cancelButton(t)]]);
}

/** M-Pesa or Airtel Money; the network the prefix suggests comes first with a ✅. */
export function networkKeyboard(t: TFunction, suggested: "mpesa" | "airtel" | undefined): InlineKeyboard {
  const order: Array<"mpesa" | "airtel"> = suggested === "airtel" ? ["airtel", "mpesa"] : ["mpesa", "airtel"];
  const buttons = order.map((network) =>
    InlineKeyboard.text(
      `${network === suggested ? "✅ " : ""}${t(`payout:ke.network.${network}`)}`,
      payoutNetworkData.pack({ network }),
    ),
  );
  return InlineKeyboard.from([buttons, [cancelButton(t)]]);
}

export function popularBanksKeyboard(t: TFunction): InlineKeyboard {
  const buttons = POPULAR_BANKS.map(({ label, code }) =>
    InlineKeyboard.text(label, payoutBankData.pack({ code })),
  );
  return InlineKeyboard.from([...rows(buttons, 3), [cancelButton(t)]]);
}

export function bankResultsKeyboard(t: TFunction, banks: BankEntry[]): InlineKeyboard {
  const buttons = banks.map((bank) => [
    InlineKeyboard.text(bank.bankName.trim(), payoutBankData.pack({ code: bank.nipBankCode })),
  ]);
  return InlineKeyboard.from([...buttons, [actionButton(t, "search")], [cancelButton(t)]]);
}

/** The whole South African list, two a row (the buttons carry each bank's place in the API's list). */
export function zaBanksKeyboard(t: TFunction, names: readonly string[]): InlineKeyboard {
  const buttons = names.map((name, index) => InlineKeyboard.text(name, payoutZaBankData.pack({ index })));
  return InlineKeyboard.from([...rows(buttons, 2), [cancelButton(t)]]);
}

/** The banks a typed fragment matched, one a row, then "search again" (the whole list) and ❌. */
export function zaMatchesKeyboard(t: TFunction, names: readonly string[], matches: number[]): InlineKeyboard {
  const buttons = matches.map((index) => [
    InlineKeyboard.text(names[index] ?? "", payoutZaBankData.pack({ index })),
  ]);
  return InlineKeyboard.from([...buttons, [actionButton(t, "search")], [cancelButton(t)]]);
}

/** People this user sent to before, one a row (by their place in the list the screen shows), then "someone new". */
export function knownRecipientsKeyboard(t: TFunction, labels: readonly string[]): InlineKeyboard {
  const buttons = labels.map((label, index) => [InlineKeyboard.text(label, payoutKnownData.pack({ index }))]);
  return InlineKeyboard.from([...buttons, [actionButton(t, "someone_new")], [cancelButton(t)]]);
}

/** The quote card: Confirm, Refresh, Cancel (our own cancel: it also retires the quote's order record). */
export function quoteKeyboard(t: TFunction, orderId: string): InlineKeyboard {
  return InlineKeyboard.from([
    [InlineKeyboard.text(t("payout:button.confirm"), payoutConfirmData.pack({ orderId }))],
    [actionButton(t, "refresh"), InlineKeyboard.text(t("common:cancel_button"), payoutAction("cancel"))],
  ]);
}

/** Under a quote past its deadline: "New quote" (the same button the pipeline puts on expired cards) or Cancel. */
export function expiredQuoteKeyboard(t: TFunction, orderId: string): InlineKeyboard {
  return InlineKeyboard.from([
    [InlineKeyboard.text(t("status:button.newQuote"), requoteCallbackData(orderId))],
    [InlineKeyboard.text(t("common:cancel_button"), payoutAction("cancel"))],
  ]);
}

/** Under the invoice text: simulate (sandbox/staging) and save recipient (when not saved yet). */
export function invoiceKeyboard(
  t: TFunction,
  orderId: string,
  options: { simulate: boolean; save: boolean },
): InlineKeyboard | undefined {
  const buttons: Button[][] = [];
  if (options.simulate)
    buttons.push([InlineKeyboard.text(t("payout:button.simulate"), payoutSimulateData.pack({ orderId }))]);
  if (options.save)
    buttons.push([InlineKeyboard.text(t("payout:button.save"), payoutSaveData.pack({ orderId }))]);
  return buttons.length > 0 ? InlineKeyboard.from(buttons) : undefined;
}
