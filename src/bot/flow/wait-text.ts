import type { FlowContext, FlowConversation } from "../context.ts";

/**
 * A flow step that takes typed text: other buttons and commands keep working while it waits (they are passed on
 * to their own handlers; /cancel is handled before the flow), anything else that is not text gets `hint`.
 */
export async function waitForText(
  conversation: FlowConversation,
  hint: (ctx: FlowContext) => Promise<unknown>,
): Promise<{ ctx: FlowContext; text: string }> {
  for (;;) {
    const ctx = await conversation.wait();
    const text = ctx.message?.text;
    if (ctx.callbackQuery || text?.startsWith("/")) await conversation.skip({ next: true });
    if (text !== undefined) return { ctx, text };
    await hint(ctx);
  }
}
