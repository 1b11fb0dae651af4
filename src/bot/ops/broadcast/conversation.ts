import { createConversation } from "@grammyjs/conversations";
import { InlineKeyboard } from "grammy";
import type { BotContext, FlowContext, FlowConversation } from "#src/bot/context.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { broadcastData } from "#src/bot/ops/callback-data.js";
import { askText } from "#src/bot/ops/withdraw/prompt.js";
import { saveDraft } from "./broadcast.ts";

/** Leave room under Telegram's 4096 characters. */
const MAX_LENGTH = 4000;

/**
 * /broadcast in the admin group: the text → a preview exactly as users will get it → a Send / Edit / Drop card.
 * The card's buttons are handled outside the flow (src/bot/ops/operations.ts): delivery runs in the
 * background for minutes and must not hold this conversation (or the group chat) open.
 */
async function broadcastFlow(conversation: FlowConversation, ctx: FlowContext): Promise<void> {
  const owner = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (owner === undefined || chatId === undefined) return;
  let current = ctx;
  let ask = ctx.t("admin:broadcast.prompt");
  let text = "";
  while (text === "") {
    const input = await askText(conversation, current, owner, ask);
    current = input.ctx;
    const typed = input.text.trim();
    if (typed.length > 0 && typed.length <= MAX_LENGTH) text = typed;
    else ask = current.t("admin:broadcast.too_long", { max: MAX_LENGTH });
  }
  const deps = current.deps;
  const [audience, id] = await conversation.external(async () => [
    await deps.store.users.count(),
    await saveDraft(deps.store, { text, owner, chatId }),
  ]);
  // The preview is the message itself, plain text, as every user will get it.
  await current.reply(text, { link_preview_options: { is_disabled: true } });
  const button = (label: string, action: string) =>
    InlineKeyboard.text(label, broadcastData.pack({ action, id }));
  await current.reply(current.t("admin:broadcast.confirm", { count: audience }), {
    parse_mode: "HTML",
    reply_markup: InlineKeyboard.from([
      [
        button(current.t("admin:broadcast.send_button"), "send"),
        button(current.t("admin:broadcast.edit_button"), "edit"),
      ],
      [button(current.t("common:cancel_button"), "drop")],
    ]),
  });
}

export function broadcastConversation() {
  return createConversation<BotContext, FlowContext>(broadcastFlow, { id: FLOWS.broadcast });
}
