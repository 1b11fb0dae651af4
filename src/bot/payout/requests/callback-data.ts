import { REQUEST_TOKEN } from "../../../store/index.ts";
import { defineCallbackData, oneOf } from "../../../telegram/callback-data.ts";

/**
 * Money request buttons: "rq:<action>:<token>" (at most 34 bytes).
 * - cancel   the requester withdraws the request (on its card and in /requests)
 */
export const requestData = defineCallbackData("rq", {
  action: oneOf("cancel"),
  token: REQUEST_TOKEN,
});
