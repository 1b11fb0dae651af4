import { REQUEST_TOKEN } from "#src/store/index.js";
import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

/**
 * Money request buttons: "rq:<action>:<token>" (at most 34 bytes).
 * - cancel   the requester withdraws the request (on its card and in /requests)
 */
export const requestData = defineCallbackData("rq", {
  action: oneOf("cancel"),
  token: REQUEST_TOKEN,
});
