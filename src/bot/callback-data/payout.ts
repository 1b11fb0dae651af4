import { defineCallbackData } from "./define.ts";

/**
 * Buttons of the payout flow. Every prefix starts with "po-"; values are short codes or the API's order id,
 * never user data. Screens inside the flow are also checked by message id, so a press on an older screen is stale.
 */

/** Country picker: NG | KE | ZA | GH. */
export const payoutCountryData = defineCallbackData("po-c", { country: String });
/** Kenyan payout method: phone | bill | till. */
export const payoutMethodData = defineCallbackData("po-m", { method: String });
/** Mobile-money network of a Kenyan phone: mpesa | airtel. */
export const payoutNetworkData = defineCallbackData("po-n", { network: String });
/** A Nigerian bank by its NIP code (6 digits). */
export const payoutBankData = defineCallbackData("po-b", { code: String });
/** A South African bank by its position in GET /bank/bankcode?country=ZA. */
export const payoutZaBankData = defineCallbackData("po-z", { index: Number });
/** Generic step actions (see PAYOUT_ACTIONS). */
export const payoutActionData = defineCallbackData("po-a", { action: String });
/** Confirm on a quote card; handled outside the flow too ("already confirmed" for a double tap). */
export const payoutConfirmData = defineCallbackData("po-ok", { orderId: String });
/** Sandbox/staging only: simulate paying the invoice of an order. */
export const payoutSimulateData = defineCallbackData("po-sim", { orderId: String });
/** Save the beneficiary of an order as a recipient. */
export const payoutSaveData = defineCallbackData("po-save", { orderId: String });

export const PAYOUT_ACTIONS = [
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
] as const;
export type PayoutAction = (typeof PAYOUT_ACTIONS)[number];

export const payoutAction = (action: PayoutAction) => payoutActionData.pack({ action });

/** Data of the flow's own screens (not the invoice buttons, which live on after the flow ends). */
export const PAYOUT_FLOW_DATA = /^po-(?:c|m|n|b|z|a|ok):/;

/** Unpack without throwing: undefined for data of another shape. */
export function unpackOr<T>(
  codec: { filter(): RegExp; unpack(data: string): T },
  data: string,
): T | undefined {
  if (!codec.filter().test(data)) return undefined;
  try {
    return codec.unpack(data);
  } catch {
    return undefined;
  }
}
