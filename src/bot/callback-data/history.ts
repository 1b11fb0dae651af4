import { defineCallbackData } from "./define.ts";

/**
 * /history buttons: "hist:<action>:<value>".
 * - page:<offset>     ◀ ▶ paging (edits the list in place)
 * - view:<orderId>    show the order's status card
 * - again:<orderId>   send again to the order's recipient (payouts)
 */
export const historyData = defineCallbackData("hist", { action: String, value: String });
