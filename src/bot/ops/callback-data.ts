import { defineCallbackData, ID, oneOf } from "#src/telegram/callback-data.js";

/**
 * Ops buttons (admin group only). Every payload is a short server-side id, never the data itself.
 *   alr:<o|c|d|r>:<ref>          alert buttons: show order (orderId) / re-check order (orderId) / re-deliver the
 *                                status card to the user (orderId) / retry a dead letter (a short ref stored in
 *                                Redis → the dead letter's queue and job id)
 *   wd:<action>:<value>          the /withdraw_ngn and /withdraw_btc flow (bank pick, confirm)
 *   bc:<send|edit|drop>:<draft>  a previewed broadcast (the draft text is kept in Redis)
 */
export const alertData = defineCallbackData("alr", { action: oneOf("o", "c", "d", "r"), ref: ID });
/** value: a bank's NIP code, or empty. */
export const withdrawData = defineCallbackData("wd", { action: oneOf("bank", "confirm"), value: /\d{0,12}/ });
export const broadcastData = defineCallbackData("bc", {
  action: oneOf("send", "edit", "drop"),
  id: /[0-9a-f]{8}/,
});

export const ALERT_ACTIONS = { showOrder: "o", recheck: "c", redeliver: "d", retry: "r" } as const;
