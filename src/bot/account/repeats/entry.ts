import { InlineKeyboard } from "grammy";
import type { TFunction } from "#src/i18n/index.js";
import { repeatNewData } from "./callback-data.ts";

/** The 🔁 button of a saved recipient's row in /recipients: asks week or month, then the amount. */
export function recipientRepeatButton(t: TFunction, recipientId: string, n: number) {
  return InlineKeyboard.text(
    t("repeats:button_n.recipient", { n }),
    repeatNewData.pack({ cadence: "ask", ref: recipientId, source: "r" }),
  );
}
