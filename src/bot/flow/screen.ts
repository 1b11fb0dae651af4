import { InlineKeyboard } from "grammy";
import type { FlowContext, FlowConversation } from "../context.ts";
import { cancelButton } from "./main-menu.ts";

/**
 * The flow kernel's one "wait for this screen's input" loop, used by every conversation that waits on plain
 * screens (buy, /newlink, the ops flows).
 *
 * - Buttons count only on the screen's own message and only with the screen's actions; any other press passes
 *   through to its own handler (an old quote's Confirm gets its toast there; an approval card's buttons keep
 *   working while someone prepares a withdrawal).
 * - In a group (the admin group) a flow belongs to whoever started it: only their messages count, and only as a
 *   reply to the prompt (with privacy mode on that is all the bot sees anyway); everything else passes through
 *   untouched, so other admins keep using the bot.
 * - In a private chat, text that is not a command counts; anything else gets the step's hint and the flow keeps
 *   waiting. Commands that are not flow escapes (/cancel and menu commands are handled before the flow by the
 *   cancel feature) go on to their handlers, or get the hint when the screen says `commands: "hint"`.
 */
/** A screen's callback data: "<prefix>:<action>:<value>" (defineCallbackData with those two fields). */
interface Codec {
  filter(): RegExp;
  unpack(data: string): { action: string; value?: string };
  pack(data: { action: string; value: string }): string;
}

export interface Screen {
  codec: Codec;
  /** The bot message whose buttons this step accepts. */
  messageId: number;
  /** Button actions of that message this step accepts. */
  actions: readonly string[];
  acceptText: boolean;
  /** In groups: the user the flow belongs to. */
  owner?: number;
  /** What to say when the user sends something this step cannot use. */
  hint(ctx: FlowContext): string;
  /** Buttons under the hint (e.g. ❌). */
  hintKeyboard?(ctx: FlowContext): InlineKeyboard;
  /** Unknown commands in a private chat: passed on to their handlers (default) or answered with the hint. */
  commands?: "pass" | "hint";
  /**
   * Leave the flow when the next update comes after this time (ms since epoch; lazy: checked when it arrives).
   * That update then goes to the normal handlers, as if no flow were active.
   */
  deadline?: number;
}

/** A button of a screen: its label, and the action and value its callback data carries. */
export interface ScreenButton {
  label: string;
  action: string;
  value?: string;
}

/** A screen's rows of buttons packed with its codec, and ❌ under them. */
export function screenKeyboard(
  ctx: Pick<FlowContext, "t">,
  codec: Codec,
  rows: readonly (readonly ScreenButton[])[],
): InlineKeyboard {
  return InlineKeyboard.from([
    ...rows.map((row) =>
      row.map((button) =>
        InlineKeyboard.text(button.label, codec.pack({ action: button.action, value: button.value ?? "" })),
      ),
    ),
    [cancelButton(ctx.t)],
  ]);
}

/** The actions a screen's buttons carry (what waitForScreen should accept). */
function actionsOf(rows: readonly (readonly ScreenButton[])[]): string[] {
  return [...new Set(rows.flat().map((button) => button.action))];
}

export type ScreenInput =
  | { kind: "text"; ctx: FlowContext; text: string; messageId: number }
  | { kind: "button"; ctx: FlowContext; action: string; value: string };

export async function waitForScreen(conversation: FlowConversation, screen: Screen): Promise<ScreenInput> {
  for (;;) {
    const maxMilliseconds =
      screen.deadline === undefined
        ? undefined
        : Math.max(1_000, screen.deadline - (await conversation.now()));
    const ctx = await conversation.wait(maxMilliseconds === undefined ? undefined : { maxMilliseconds });
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
    } else if (text?.startsWith("/") && screen.commands !== "hint") {
      // An unknown command mid-flow: other handlers decide (merchant and ops commands work as usual).
      await conversation.skip({ next: true });
    }
    if (screen.acceptText && text !== undefined && !text.startsWith("/")) {
      return { kind: "text", ctx, text, messageId: message!.message_id };
    }
    const keyboard = screen.hintKeyboard?.(ctx);
    await ctx.reply(screen.hint(ctx), {
      parse_mode: "HTML",
      ...(keyboard ? { reply_markup: keyboard } : {}),
    });
  }
}

/**
 * Send a screen of buttons (with ❌ under them) and wait for its input; a button press is answered. Returns the
 * screen's message id with the input.
 */
export async function askScreen(
  conversation: FlowConversation,
  ctx: FlowContext,
  screen: Omit<Screen, "messageId" | "actions"> & {
    text: string;
    rows: readonly (readonly ScreenButton[])[];
  },
): Promise<{ messageId: number; input: ScreenInput }> {
  const { text, rows, ...waiting } = screen;
  const sent = await ctx.reply(text, {
    parse_mode: "HTML",
    reply_markup: screenKeyboard(ctx, screen.codec, rows),
  });
  const input = await waitForScreen(conversation, {
    ...waiting,
    messageId: sent.message_id,
    actions: actionsOf(rows),
  });
  if (input.kind === "button") await input.ctx.answerCallbackQuery();
  return { messageId: sent.message_id, input };
}

/** Remove a screen's buttons once it was acted on (it may already be gone or unchanged: not an error). */
export async function clearButtons(ctx: FlowContext, messageId: number): Promise<void> {
  if (ctx.chat === undefined) return;
  await ctx.api.editMessageReplyMarkup(ctx.chat.id, messageId).catch(() => undefined);
}

/** Edit a screen to its final text without buttons ("message is not modified" is fine). */
export async function settleScreen(ctx: FlowContext, messageId: number, text: string): Promise<void> {
  await ctx.api.editMessageText(ctx.chatId!, messageId, text, { parse_mode: "HTML" }).catch(() => undefined);
}
