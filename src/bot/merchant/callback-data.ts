import { defineCallbackData, oneOf, UUID } from "#src/telegram/callback-data.js";

/**
 * Merchant buttons.
 *   nl:<action>:<value>   the /newlink flow: speed:<slow|medium|fast>, methods:<bt|ln> (bank only / add
 *                         Lightning), skip:, confirm:
 *   lnk:<paymentRef>      details of one payment link (the API's UUID, 36 bytes)
 */
export const newlinkData = defineCallbackData("nl", {
  action: oneOf("speed", "skip", "confirm", "methods"),
  value: /(?:slow|medium|fast|bt|ln)?/,
});
export const linkData = defineCallbackData("lnk", { ref: UUID });
