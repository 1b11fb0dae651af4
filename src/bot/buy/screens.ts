import { InlineKeyboard } from "grammy";
import type { Speed } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { type Screen, type ScreenInput, waitForScreen } from "#src/bot/flow/screen.js";
import { buyData } from "./callback-data.ts";

export type BuyAmountCurrency = "NGNKOBO" | "BTCSAT";

export interface BuyAmount {
  minor: number;
  currency: BuyAmountCurrency;
}

/**
 * What the flow may be entered with (JSON): everything known skips its step. "New quote" on an expired buy
 * passes all three plus the expired order's id (the idempotency key of the new quote).
 */
export interface BuyArgs {
  address?: string;
  speed?: Speed;
  amount?: BuyAmount;
  requoteOf?: string;
}

function cancelKeyboard(ctx: FlowContext): InlineKeyboard {
  return new InlineKeyboard().add(cancelButton(ctx.t));
}

/** A buy screen: buy:<action> buttons, the ❌ under every hint, unknown commands answered with the hint. */
export const BUY_SCREEN = { codec: buyData, hintKeyboard: cancelKeyboard, commands: "hint" } as const;

export function waitForInput(
  conversation: FlowConversation,
  screen: Omit<Screen, keyof typeof BUY_SCREEN>,
): Promise<ScreenInput> {
  return waitForScreen(conversation, { ...screen, ...BUY_SCREEN });
}
