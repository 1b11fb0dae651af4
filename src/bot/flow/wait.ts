import type { FlowContext, FlowConversation } from "#src/bot/context.js";

/**
 * The flow kernel's one "wait for this screen's input" loop. Every way a conversation waits (the `Screen` object's
 * `ask`, `waitForScreen`, `waitForText`) is this loop with its own answer to "what is this press?".
 *
 * - A press the screen takes is returned; one the screen refuses (a stale button of the flow, someone else's screen
 *   in a group) is answered by `press` and dropped (the conversation log does not grow); any other press passes
 *   through to its own handler (an old quote's Confirm gets its toast there, an approval card's buttons keep working
 *   while someone prepares a withdrawal).
 * - In a group (the admin group) a flow belongs to whoever started it: only their messages count, and only as a
 *   reply to the prompt (with privacy mode on that is all the bot sees anyway); everything else passes through
 *   untouched, so other admins keep using the bot.
 * - In a private chat, text that is not a command counts when the screen takes text; anything else gets the hint and
 *   the flow keeps waiting. Commands that are not flow escapes (/cancel and menu commands are handled before the flow
 *   by the cancel feature) go on to their handlers, or get the hint when `commands` is "hint".
 */

/** What a press is to the waiting screen. */
type Press = "take" | "refused" | "pass";

interface Waiting {
  /** Decide on a press (data, and the message it was on); a refused press is answered here. */
  press(ctx: FlowContext, data: string, messageId: number | undefined): Promise<Press>;
  /** Take typed text (not commands). */
  text: boolean;
  /** In groups: the user the flow belongs to. */
  owner?: number;
  /** In groups: only replies to this message count. */
  promptId?: number;
  /** Unknown commands in a private chat: passed on to their handlers or answered with the hint. */
  commands: "pass" | "hint";
  /** Say what this step needs (anything it cannot use). */
  hint(ctx: FlowContext): Promise<unknown>;
  /**
   * Leave the flow when the next update comes after this time (ms since epoch; lazy: checked when it arrives).
   * That update then goes to the normal handlers, as if no flow were active.
   */
  deadline?: number;
}

type Input =
  | { kind: "text"; ctx: FlowContext; text: string; messageId: number }
  | { kind: "button"; ctx: FlowContext; data: string };

export function inGroup(ctx: FlowContext): boolean {
  return ctx.chat?.type === "group" || ctx.chat?.type === "supergroup";
}

export async function waitFor(conversation: FlowConversation, waiting: Waiting): Promise<Input> {
  for (;;) {
    const maxMilliseconds =
      waiting.deadline === undefined
        ? undefined
        : Math.max(1_000, waiting.deadline - (await conversation.now()));
    const ctx = await conversation.wait(maxMilliseconds === undefined ? undefined : { maxMilliseconds });
    const query = ctx.callbackQuery;
    if (query) {
      const data = query.data ?? "";
      const press = await waiting.press(ctx, data, query.message?.message_id);
      if (press === "take") return { kind: "button", ctx, data };
      if (press === "refused") await conversation.skip({ next: false });
      await conversation.skip({ next: true });
    }
    const message = ctx.message;
    if (!message) return await conversation.skip({ next: true });
    const text = message.text;
    if (inGroup(ctx)) {
      const fromOwner = waiting.owner === undefined || message.from?.id === waiting.owner;
      const replyToPrompt =
        waiting.promptId === undefined || message.reply_to_message?.message_id === waiting.promptId;
      if (!fromOwner || !replyToPrompt) await conversation.skip({ next: true });
    } else if (text?.startsWith("/") && waiting.commands === "pass") {
      // An unknown command mid-flow: other handlers decide (merchant and ops commands work as usual).
      await conversation.skip({ next: true });
    }
    if (waiting.text && text !== undefined && !text.startsWith("/")) {
      return { kind: "text", ctx, text, messageId: message.message_id };
    }
    await waiting.hint(ctx);
  }
}

/**
 * A copy of the current screen: a bot message sent after the previous screen and before the current one that
 * carries the flow's buttons can only be the current screen sent twice — once by a process that died before its
 * conversation log recorded Telegram's answer, again by the process that handled the update after it. A press on it
 * is the current screen's answer.
 */
export function isCopy(
  messageId: number | undefined,
  screen: { current: number | undefined; previous: number | undefined },
): boolean {
  if (messageId === undefined || screen.current === undefined) return false;
  return messageId < screen.current && messageId > (screen.previous ?? 0);
}
