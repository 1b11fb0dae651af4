import { defineCallbackData, ID, int, oneOf } from "#src/telegram/callback-data.js";

/**
 * /history buttons: "hist:<action>:<value>".
 * - page:<offset>     ◀ ▶ paging (edits the list in place)
 * - view:<orderId>    show the order's status card
 * - again:<orderId>   send again to the order's recipient (payouts)
 */
export const historyData = defineCallbackData("hist", { action: oneOf("page", "view", "again"), value: ID });
/** The list offset of a page button: bounded, so a forged one never reaches Redis as a huge or odd number. */
export const HISTORY_OFFSET = int(5);
