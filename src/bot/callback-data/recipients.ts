import { defineCallbackData } from "./define.ts";

/**
 * /recipients buttons: "rcp:<action>:<value>". Values are short server-side ids (recipient id, list offset).
 * - page:<offset>    ◀ ▶ paging
 * - send:<id>        send again (enters the payout flow)
 * - del:<id>         ask to delete
 * - delok:<id>       delete, confirmed
 * - keep:<offset>    do not delete; back to the list
 */
export const recipientsData = defineCallbackData("rcp", { action: String, value: String });
