import { defineCallbackData, int, oneOf } from "#src/telegram/callback-data.js";

/**
 * /recipients buttons: "rcp:<action>:<value>". Values are short server-side ids (recipient id, list offset).
 * - page:<offset>    ◀ ▶ paging
 * - send:<id>        send again (enters the payout flow)
 * - del:<id>         ask to delete
 * - delok:<id>       delete, confirmed
 * - keep:<offset>    do not delete; back to the list
 */
export const recipientsData = defineCallbackData("rcp", {
  action: oneOf("page", "send", "del", "delok", "keep"),
  value: /[A-Za-z0-9_-]{1,16}/,
});
/** The list offset of page/keep buttons. */
export const RECIPIENTS_OFFSET = int(4);
/** A recipient id (8 hex digits). */
export const RECIPIENT_ID = /[0-9a-f]{8}/;
