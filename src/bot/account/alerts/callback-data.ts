import { COUNTRIES } from "#src/corridors/index.js";
import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

const COUNTRY = oneOf(...COUNTRIES);

/**
 * Rate-alert buttons.
 *   ra-new:<country>   set an alert for that corridor (price card "🔔 Alert me", the /alerts screen)
 *   ra-send:<country>  "Send now" on a fired alert: the payout flow, straight to that corridor
 *   ra-del:<id>        remove one of my alerts (12 hex characters)
 */
export const rateAlertNewData = defineCallbackData("ra-new", { country: COUNTRY });
export const rateAlertSendData = defineCallbackData("ra-send", { country: COUNTRY });
export const rateAlertDeleteData = defineCallbackData("ra-del", { id: /[0-9a-f]{12}/ });
