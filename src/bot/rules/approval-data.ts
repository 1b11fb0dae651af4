import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

/** Approve / Reject on a treasury withdrawal request's card (admin group only): apv:<a|r>:<approval id>. */
export const approvalData = defineCallbackData("apv", { action: oneOf("a", "r"), id: /[0-9a-f]{10}/ });

export const APPROVAL_ACTIONS = { approve: "a", reject: "r" } as const;
