import { defineCallbackData, oneOf, UUID } from "./define.ts";

/**
 * Merchant buttons.
 *   nl:<action>:<value>   the /newlink flow (speed, skip a step, confirm)
 *   lnk:<paymentRef>      details of one payment link (the API's UUID, 36 bytes)
 */
export const newlinkData = defineCallbackData("nl", {
  action: oneOf("speed", "skip", "confirm"),
  value: /(?:slow|medium|fast)?/,
});
export const linkData = defineCallbackData("lnk", { ref: UUID });
