import { defineCallbackData, ID, oneOf } from "#src/telegram/callback-data.js";

/** A repeat's id (8 hex digits, server side). */
const REPEAT_ID = /[0-9a-f]{8}/;

const REPEAT_ACTIONS = ["quote", "skip", "pause", "resume", "amount", "stop"] as const;
export type RepeatAction = (typeof REPEAT_ACTIONS)[number];

/**
 * Buttons on a due card ("c") and in the /repeats list ("l"): "rpt:<action>:<id>:<where>".
 * - quote    a fresh quote for this repeat (enters the payout flow at the quote card)
 * - skip     card: not this time (the schedule already moved on); list: skip the next date
 * - pause / resume / stop
 * - amount   change the amount (a short flow)
 */
export const repeatData = defineCallbackData("rpt", {
  action: oneOf(...REPEAT_ACTIONS),
  id: REPEAT_ID,
  where: oneOf("c", "l"),
});

/**
 * Set up a repeat: "rptn:<cadence>:<ref>:<source>", from a receipt (source "o", ref = the order id) or a saved
 * recipient (source "r", ref = the recipient id). Cadence "ask" shows the week / month choice first.
 */
export const repeatNewData = defineCallbackData("rptn", {
  cadence: oneOf("ask", "week", "month"),
  ref: ID,
  source: oneOf("o", "r"),
});
