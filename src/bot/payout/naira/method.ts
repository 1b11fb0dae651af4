import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import type { TFunction } from "#src/i18n/index.js";
import { payoutAction } from "../callback-data.ts";
import type { Draft } from "../prompts.ts";
import { NAIRA_FUNDED } from "./quote.ts";

/**
 * "How will you pay?" on the amount screen of a Kenyan, South African or Ghanaian payout: ⚡ bitcoin over Lightning
 * or 🏦 naira by bank transfer, the chosen one ticked. Money requests are paid over Lightning only.
 */
export type PayMethod = "lightning" | "naira";

/** The naira-funded part of the flow (src/bot/payout/naira/flow.ts), as the amount screen hands over to it. */
export type NairaStep = (
  io: FlowIo,
  draft: Draft,
  lightningMinimum: number | undefined,
) => Promise<"done" | "cancelled" | "lightning" | "change_recipient">;

export function offersNaira(draft: Pick<Draft, "country" | "requestId">): boolean {
  return NAIRA_FUNDED.includes(draft.country) && !draft.requestId;
}

export function payMethodLine(t: TFunction, chosen: PayMethod): string {
  return t("naira:method.question", { method: t(`naira:method.${chosen}`) });
}

export function payMethodRow(t: TFunction, chosen: PayMethod): InlineKeyboardButton[] {
  const button = (method: PayMethod) =>
    InlineKeyboard.text(
      `${method === chosen ? "✅ " : ""}${t(`naira:method.${method}`)}`,
      payoutAction(method === "naira" ? "pay_naira" : "pay_lightning"),
    );
  return [button("lightning"), button("naira")];
}
