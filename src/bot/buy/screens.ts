import { InlineKeyboard } from "grammy";
import type { Speed } from "../../api/index.ts";
import type { FlowContext, FlowConversation } from "../context.ts";
import { cancelButton } from "../flow/main-menu.ts";
import { buyData } from "./callback-data.ts";

/** The smallest on-chain purchase the API accepts (spec 8). */
export const MIN_ONCHAIN_SATS = 6_000;

export const SPEEDS: readonly Speed[] = ["slow", "medium", "fast"];
export const isSpeed = (value: unknown): value is Speed => SPEEDS.includes(value as Speed);

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

export function cancelKeyboard(ctx: FlowContext): InlineKeyboard {
  return new InlineKeyboard().add(cancelButton(ctx.t));
}

export type FlowInput =
  | { kind: "text"; ctx: FlowContext; text: string; messageId: number }
  | { kind: "button"; ctx: FlowContext; action: string; value: string };

export interface Screen {
  /** The bot message whose buttons this step accepts. */
  messageId: number;
  /** buy:<action> buttons of that message this step accepts. */
  actions: readonly string[];
  acceptText: boolean;
  /** What to say when the user sends something this step cannot use. */
  hint(ctx: FlowContext): string;
  /**
   * Leave the flow when the next update comes after this time (ms since epoch; lazy: checked when it arrives).
   * That update then goes to the normal handlers, as if no flow were active.
   */
  deadline?: number;
}

/**
 * Wait for what the current screen accepts. Buttons of other screens and other features pass through to their own
 * handlers (an old quote's Confirm gets its toast there; a status card's buttons keep working); commands that are
 * not flow escapes, photos and stickers get the step's hint, and the flow keeps waiting.
 */
export async function waitForInput(conversation: FlowConversation, screen: Screen): Promise<FlowInput> {
  for (;;) {
    const maxMilliseconds =
      screen.deadline === undefined
        ? undefined
        : Math.max(1_000, screen.deadline - (await conversation.now()));
    const ctx = await conversation.wait(maxMilliseconds === undefined ? undefined : { maxMilliseconds });
    const query = ctx.callbackQuery;
    if (query) {
      const data = query.data ?? "";
      if (buyData.filter().test(data) && query.message?.message_id === screen.messageId) {
        const { action, value } = buyData.unpack(data) as { action: string; value: string };
        if (screen.actions.includes(action)) return { kind: "button", ctx, action, value };
      }
      await conversation.skip({ next: true });
    }
    const message = ctx.message;
    if (!message) await conversation.skip({ next: true });
    const text = message?.text;
    if (screen.acceptText && text !== undefined && !text.startsWith("/")) {
      return { kind: "text", ctx, text, messageId: message!.message_id };
    }
    await ctx.reply(screen.hint(ctx), { parse_mode: "HTML", reply_markup: cancelKeyboard(ctx) });
  }
}

/** Remove a screen's buttons once it was acted on (it may already be gone or unchanged: not an error). */
export async function clearButtons(ctx: FlowContext, messageId: number): Promise<void> {
  await ctx.api.editMessageReplyMarkup(ctx.chatId!, messageId).catch(() => undefined);
}

/** Edit a screen to its final text without buttons ("message is not modified" is fine). */
export async function settleScreen(ctx: FlowContext, messageId: number, text: string): Promise<void> {
  await ctx.api.editMessageText(ctx.chatId!, messageId, text, { parse_mode: "HTML" }).catch(() => undefined);
}
