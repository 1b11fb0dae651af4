import type { FlowScreens } from "#src/bot/flow/flow-io.js";
import { COUNTRIES } from "#src/money/index.js";
import { defineCallbackData, ID, int, oneOf } from "#src/telegram/callback-data.js";

/**
 * Buttons of the payout flow. Every prefix starts with "po-"; values are short codes or the API's order id,
 * never user data. Screens inside the flow are also checked by message id, so a press on an older screen is stale.
 */

/** Country picker: NG | KE | ZA | GH. */
export const payoutCountryData = defineCallbackData("po-c", { country: oneOf(...COUNTRIES) });
/** Kenyan payout method: phone | bill | till. */
export const payoutMethodData = defineCallbackData("po-m", { method: oneOf("phone", "bill", "till") });
/** Mobile-money network of a Kenyan phone: mpesa | airtel. */
export const payoutNetworkData = defineCallbackData("po-n", { network: oneOf("mpesa", "airtel") });
/** A Nigerian bank by its NIP code (6 digits). */
export const payoutBankData = defineCallbackData("po-b", { code: /\d{3,12}/ });
/** A South African bank by its position in GET /bank/bankcode?country=ZA. */
export const payoutZaBankData = defineCallbackData("po-z", { index: int(3) });
/**
 * A recipient this user sent to before, by its place in the list the flow drew from the user's own records (never
 * a record id: the flow reads the record again, as the user's, when it is chosen).
 */
export const payoutKnownData = defineCallbackData("po-k", { index: int(1) });
const PAYOUT_ACTIONS = [
  "retry",
  "name_ok",
  "change",
  "other_bank",
  "other_account",
  "toggle",
  "change_recipient",
  "change_amount",
  "refresh",
  "cancel",
  "search",
  "someone_new",
  "pay_naira",
  "pay_lightning",
] as const;
export type PayoutAction = (typeof PAYOUT_ACTIONS)[number];

/** Generic step actions (see PAYOUT_ACTIONS). */
const payoutActionData = defineCallbackData("po-a", { action: oneOf(...PAYOUT_ACTIONS) });
/** Confirm on a quote card; handled outside the flow too ("already confirmed" for a double tap). */
export const payoutConfirmData = defineCallbackData("po-ok", { orderId: ID });
/** Sandbox/staging only: simulate paying the invoice of an order. */
export const payoutSimulateData = defineCallbackData("po-sim", { orderId: ID });
/** Save the beneficiary of an order as a recipient. */
export const payoutSaveData = defineCallbackData("po-save", { orderId: ID });

export const payoutAction = (action: PayoutAction) => payoutActionData.pack({ action });

/**
 * Data of the flow's own screens (not the invoice buttons, which live on after the flow ends), exactly as the
 * codecs accept it: forged data of a flow prefix is nobody's and ends at the fallback.
 */
export const PAYOUT_FLOW_DATA = new RegExp(
  [
    payoutCountryData,
    payoutMethodData,
    payoutNetworkData,
    payoutBankData,
    payoutZaBankData,
    payoutKnownData,
    payoutActionData,
    payoutConfirmData,
  ]
    .map((codec) => `(?:${codec.filter().source})`)
    .join("|"),
);

/** The payout flows' screens (the payout and money requests): their buttons, and a quote card's Confirm kept outside. */
export const PAYOUT_SCREENS: FlowScreens = {
  data: PAYOUT_FLOW_DATA,
  handledOutside: /^po-ok:/,
  staleToast: "payout:stale",
  name: "payout",
};
