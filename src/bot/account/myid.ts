import { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import type { Feature } from "#src/bot/flow/feature.js";

/**
 * /myid: the sender's Telegram user id and, in a group, the group's chat id — what an operator puts in
 * ADMIN_USER_IDS and ADMIN_CHAT_ID. It answers anyone, anywhere (ops group included), and says nothing anyone in
 * the chat could not read from Telegram itself. A message posted as a chat (an anonymous group admin, a linked
 * channel) carries no person's id, so the answer says so instead of showing the anonymous-admin bot's.
 */
export function myIdFeature(): Feature {
  const composer = new Composer<BotContext>();
  composer.command("myid", async (ctx) => {
    const lines: string[] = [];
    const postedAsChat = ctx.msg.sender_chat !== undefined;
    if (!postedAsChat && ctx.from) lines.push(ctx.t("common:myid.user", { userId: ctx.from.id }));
    if (ctx.chat.type !== "private") lines.push(ctx.t("common:myid.chat", { chatId: ctx.chat.id }));
    lines.push("", ctx.t(postedAsChat ? "common:myid.anonymous" : "common:myid.hint"));
    await ctx.reply(lines.join("\n"), {
      parse_mode: "HTML",
      // In a group, threaded under the asker's message: whose id it is stays plain.
      ...(ctx.chat.type === "private"
        ? {}
        : { reply_parameters: { message_id: ctx.msg.message_id, allow_sending_without_reply: true } }),
    });
  });
  return { name: "myid", composer };
}
