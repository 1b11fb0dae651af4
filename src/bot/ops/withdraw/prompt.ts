import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { askScreen, type ScreenButton, type ScreenInput, waitForScreen } from "#src/bot/flow/screen.js";
import { withdrawData } from "#src/bot/ops/callback-data.js";

/**
 * Prompts of the ops flows in the admin group: a force-reply aimed at the admin who started the flow (so their
 * client opens a reply, which the bot sees even with privacy mode on), or a screen with buttons.
 */
function forceReplyTo(ctx: FlowContext, placeholder?: string) {
  const replyTo = ctx.msg?.message_id;
  return {
    parse_mode: "HTML" as const,
    reply_markup: {
      force_reply: true as const,
      selective: true,
      ...(placeholder ? { input_field_placeholder: placeholder.slice(0, 64) } : {}),
    },
    ...(replyTo !== undefined
      ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
      : {}),
  };
}

/** Ask for one line of text; returns what the owner replied. */
export async function askText(
  conversation: FlowConversation,
  ctx: FlowContext,
  owner: number,
  text: string,
  placeholder?: string,
): Promise<Extract<ScreenInput, { kind: "text" }>> {
  const prompt = await ctx.reply(text, forceReplyTo(ctx, placeholder));
  for (;;) {
    const input = await waitForScreen(conversation, {
      codec: withdrawData,
      messageId: prompt.message_id,
      actions: [],
      acceptText: true,
      owner,
      hint: (current) => current.t("admin:flow.reply_hint"),
    });
    if (input.kind === "text") return input;
  }
}

/** A screen with buttons (plus ❌); resolves with the pressed action and value, callback answered. */
export async function askButtons(
  conversation: FlowConversation,
  ctx: FlowContext,
  owner: number,
  text: string,
  rows: ScreenButton[][],
  options: { acceptText?: boolean } = {},
): Promise<{ messageId: number; input: ScreenInput }> {
  return askScreen(conversation, ctx, {
    text,
    rows,
    codec: withdrawData,
    acceptText: options.acceptText ?? false,
    owner,
    hint: (current) => current.t("admin:flow.button_hint"),
  });
}
