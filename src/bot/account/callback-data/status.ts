import { defineCallbackData, ID, oneOf } from "#src/telegram/callback-data.js";

/** /status buttons: "st:refresh:<orderId>" re-reads the order from the payout API. */
export const statusData = defineCallbackData("st", { action: oneOf("refresh"), value: ID });
