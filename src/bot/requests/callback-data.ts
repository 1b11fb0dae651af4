import { REQUEST_TOKEN } from "../../store/index.ts";
import { defineCallbackData, oneOf } from "../callback-data/define.ts";

/**
 * Money request buttons: "rq:<action>:<token>" (at most 34 bytes).
 * - cancel   the requester withdraws the request (on its card and in /requests)
 */
export const requestData = defineCallbackData("rq", {
  action: oneOf("cancel"),
  token: REQUEST_TOKEN,
});
