import type { FlowContext, FlowConversation } from "../context.ts";

/**
 * Waiting for the input one screen accepts, shared by the ops flows (withdraw, broadcast) and /newlink.
 *
 * - Buttons count only on the screen's own message and only with the screen's actions; any other press passes
 *   through to its own handler (an approval card's buttons keep working while someone prepares a withdrawal).
 * - In a group (the admin group) a flow belongs to whoever started it: only their messages count, and only as a
 *   reply to the prompt (with privacy mode on that is all the bot sees anyway); everything else passes through
 *   untouched, so other admins keep using the bot.
 * - In a private chat, text that is not a command counts; anything else gets the step's hint and the flow keeps
 *   waiting. (/cancel and menu commands are handled before the flow by the cancel feature.)
 */
export interface Codec {
  filter(): RegExp;
  unpack(data: string): { action: string; value?: string };
}

export interface Screen {
  codec: Codec;
  messageId: number;
  actions: readonly string[];
  acceptText: boolean;
  /** In groups: the user the flow belongs to. */
  owner?: number;
  hint(ctx: FlowContext): string;
}

export type ScreenInput =
  | { kind: "text"; ctx: FlowContext; text: string; messageId: number }
  | { kind: "button"; ctx: FlowContext; action: string; value: string };

export async function waitForScreen(conversation: FlowConversation, screen: Screen): Promise<ScreenInput> {
  for (;;) {
    const ctx = await conversation.wait();
    const inGroup = ctx.chat?.type === "group" || ctx.chat?.type === "supergroup";
    const query = ctx.callbackQuery;
    if (query) {
      const data = query.data ?? "";
      const mine = screen.codec.filter().test(data) && query.message?.message_id === screen.messageId;
      if (mine && (!inGroup || screen.owner === undefined || query.from.id === screen.owner)) {
        const { action, value } = screen.codec.unpack(data);
        if (screen.actions.includes(action)) return { kind: "button", ctx, action, value: value ?? "" };
      }
      if (mine && inGroup) {
        // Someone else's screen: say so instead of a spinner.
        await ctx.answerCallbackQuery({ text: ctx.t("admin:flow.not_yours") });
        await conversation.skip({ next: false });
      }
      await conversation.skip({ next: true });
    }
    const message = ctx.message;
    if (!message) await conversation.skip({ next: true });
    const text = message?.text;
    if (inGroup) {
      const fromOwner = screen.owner === undefined || message?.from?.id === screen.owner;
      const replyToPrompt = message?.reply_to_message?.message_id === screen.messageId;
      if (!fromOwner || !replyToPrompt) await conversation.skip({ next: true });
    } else if (text?.startsWith("/")) {
      // An unknown command mid-flow: other handlers decide (merchant and ops commands work as usual).
      await conversation.skip({ next: true });
    }
    if (screen.acceptText && text !== undefined && !text.startsWith("/")) {
      return { kind: "text", ctx, text, messageId: message!.message_id };
    }
    await ctx.reply(screen.hint(ctx), { parse_mode: "HTML" });
  }
}

/** Remove a screen's buttons once it was acted on (it may already be gone or unchanged: not an error). */
export async function clearButtons(ctx: FlowContext, messageId: number): Promise<void> {
  if (ctx.chat === undefined) return;
  await ctx.api.editMessageReplyMarkup(ctx.chat.id, messageId).catch(() => undefined);
}
