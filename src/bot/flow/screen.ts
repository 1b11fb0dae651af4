import { InlineKeyboard } from "grammy";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { cancelButton } from "./main-menu.ts";
import { inGroup, isCopy, waitFor } from "./wait.ts";

/**
 * Plain screens: a bot message with the flow's buttons (packed with the flow's codec), waited on with the kernel's
 * one loop (`wait.ts`). Used by the conversations that send their screens themselves (buy, /newlink, the ops
 * flows, rate alerts); the payout flows use the `FlowIo` screen object (`flow-io.ts`) on the same loop.
 */
/** A screen's callback data: "<prefix>:<action>:<value>" (defineCallbackData with those two fields). */
export interface Codec {
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

/** The screens a conversation waited on, newest last (rebuilt by every replay, like the rest of the run). */
const trails = new WeakMap<FlowConversation, { current: number | undefined; previous: number | undefined }>();

function trailOf(conversation: FlowConversation, messageId: number) {
  const trail = trails.get(conversation) ?? { current: undefined, previous: undefined };
  if (trail.current !== messageId) {
    trail.previous = trail.current;
    trail.current = messageId;
  }
  trails.set(conversation, trail);
  return trail;
}

/**
 * Wait for a screen's input. A press on a copy of the screen (see `isCopy`) counts as a press on the screen; the
 * copy then loses its buttons, and the screen itself is settled by the step as usual.
 */
export async function waitForScreen(conversation: FlowConversation, screen: Screen): Promise<ScreenInput> {
  const trail = trailOf(conversation, screen.messageId);
  const input = await waitFor(conversation, {
    text: screen.acceptText,
    ...(screen.owner !== undefined ? { owner: screen.owner } : {}),
    promptId: screen.messageId,
    commands: screen.commands ?? "pass",
    ...(screen.deadline !== undefined ? { deadline: screen.deadline } : {}),
    hint: async (ctx) => {
      const keyboard = screen.hintKeyboard?.(ctx);
      await ctx.reply(screen.hint(ctx), {
        parse_mode: "HTML",
        ...(keyboard ? { reply_markup: keyboard } : {}),
      });
    },
    press: async (ctx, data, messageId) => {
      if (!screen.codec.filter().test(data)) return "pass";
      const copy = messageId !== screen.messageId && isCopy(messageId, trail);
      if (messageId !== screen.messageId && !copy) return "pass";
      if (!inGroup(ctx) || screen.owner === undefined || ctx.callbackQuery?.from.id === screen.owner) {
        if (screen.actions.includes(screen.codec.unpack(data).action)) {
          if (copy) await clearButtons(ctx, messageId!);
          return "take";
        }
      }
      if (!inGroup(ctx)) return "pass";
      // Someone else's screen: say so instead of a spinner.
      await ctx.answerCallbackQuery({ text: ctx.t("admin:flow.not_yours") });
      return "refused";
    },
  });
  if (input.kind === "text") return input;
  const { action, value } = screen.codec.unpack(input.data);
  return { kind: "button", ctx: input.ctx, action, value: value ?? "" };
}

/**
 * A step that takes typed text only: every press and unknown command goes on to its own handler (/cancel is
 * handled before the flow), anything else that is not text gets `hint`.
 */
export async function waitForText(
  conversation: FlowConversation,
  hint: (ctx: FlowContext) => Promise<unknown>,
): Promise<{ ctx: FlowContext; text: string }> {
  for (;;) {
    const input = await waitFor(conversation, {
      text: true,
      commands: "pass",
      hint,
      press: async () => "pass",
    });
    if (input.kind === "text") return { ctx: input.ctx, text: input.text };
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
