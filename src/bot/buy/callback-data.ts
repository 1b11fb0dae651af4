import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

/**
 * Buy-bitcoin buttons: "buy:<action>:<value>".
 * - speed:<slow|medium|fast>   speed picker
 * - unit:<NGN|SAT>             amount prompt: switch the unit the amount is typed in
 * - retry:                     quote failed (API busy): try again
 * - confirm:<orderId>          quote card: confirm
 * - sim:<orderId>              status card, sandbox/staging only: simulate the bank transfer
 */
export const buyData = defineCallbackData("buy", {
  action: oneOf("speed", "unit", "retry", "confirm", "sim"),
  value: /[A-Za-z0-9_-]{0,48}/,
});
