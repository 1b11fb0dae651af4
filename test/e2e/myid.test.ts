import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TELEGRAM_MENU_LANGUAGES } from "#src/bot/commands.js";
import { type Stack, startStack } from "../support/stack.ts";

/**
 * /myid tells a person the ids an operator configures (ADMIN_USER_IDS, ADMIN_CHAT_ID): their user id in a private
 * chat, and the chat's id as well in a group. Anyone may ask; the answer is in their language.
 */
describe("/myid", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("in a private chat answers with the user's id only", async () => {
    const user = stack.tg.user({ id: 7_700_123_456, first_name: "Amaka", language_code: "en" });
    await user.send("/myid");
    const reply = await user.nextMessage();
    expect(reply.text).toBe("🪪 Your Telegram ID: 7700123456\n\nTap a number to copy it.");
    // The id is code, so one tap copies it.
    const offset = reply.text?.indexOf("7700123456");
    expect(reply.entities).toContainEqual({ type: "code", offset, length: 10 });
    expect(reply.text).not.toMatch(/chat's ID/);
  });

  it("in a group answers the asker, in their language, with their id and the group's", async () => {
    const wanjiru = stack.tg.user({ id: 7_701, first_name: "Wanjiru", language_code: "sw" });
    const ops = stack.tg
      .group({ id: -1_009_876_543_210, title: "Ops", type: "supergroup" })
      .addMember(wanjiru);
    const asked = await ops.send(wanjiru, `/myid@${stack.tg.bot.username}`);
    const reply = await ops.nextMessage();
    expect(reply.text).toBe(
      "🪪 Kitambulisho chako cha Telegram (ID): 7701\n💬 Kitambulisho cha gumzo hili (ID): -1009876543210\n\n" +
        "Bonyeza nambari ili kuinakili.",
    );
    expect(reply.reply_to_message?.message_id).toBe(asked.message_id);
  });

  it("to an anonymous group admin gives the chat's id and says why their own is not shown", async () => {
    const anonymousAdmin = {
      id: 1_087_968_824,
      is_bot: true,
      first_name: "Group",
      username: "GroupAnonymousBot",
    };
    const group = stack.tg.group({ title: "Ops room", type: "supergroup" });
    group.addMember(anonymousAdmin, "administrator");
    await group.send(anonymousAdmin, "/myid", { extra: { sender_chat: group.chat } });
    const reply = await group.nextMessage();
    expect(reply.text).toContain(`💬 This chat's ID: ${group.chat.id}`);
    expect(reply.text).toContain("You are posting as the group");
    expect(reply.text).not.toContain(String(anonymousAdmin.id));
  });

  it("is in the private command menu of every language, described in that language", async () => {
    const user = stack.tg.user({ id: 7_702, first_name: "Kofi" });
    for (const { code } of TELEGRAM_MENU_LANGUAGES) {
      const menu = stack.tg.commandMenu(user, { languageCode: code });
      const entry = menu.find((command) => command.command === "myid");
      expect(entry?.description, code).toBe(stack.app.translator.t(code)("common:commands.myid"));
    }
    const descriptions = new Set(
      TELEGRAM_MENU_LANGUAGES.map(({ code }) => stack.app.translator.t(code)("common:commands.myid")),
    );
    // Translated, not English everywhere (Pidgin shares English's words for this one).
    expect(descriptions.size).toBeGreaterThan(5);
  });
});
