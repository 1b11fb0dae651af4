import {
  type Conversation,
  type ConversationData,
  type ConversationFlavor,
  conversations,
  createConversation,
  type VersionedState,
} from "@grammyjs/conversations";
import { Bot, type Context, MemorySessionStorage } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { describe, expect, it } from "vitest";
import { continuation, continueAsNew } from "#src/bot/flow/continue.js";

type Outside = ConversationFlavor<Context>;

const BOT_INFO = {
  id: 1,
  is_bot: true,
  first_name: "Test",
  username: "test_bot",
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
} as UserFromGetMe;

/** The conversation state as the plugin stores it: its replay log and the arguments it was entered with. */
type Stored = VersionedState<ConversationData>;

/**
 * A three-question flow that goes on as a fresh conversation after its second answer, carrying what it was told so
 * far: what each run saw first, what it answered, and what reached the handlers after the conversations.
 */
function harness() {
  const storage = new MemorySessionStorage<Stored>();
  const sent: string[] = [];
  // Telegram, answered at grammY's fetch: the one layer the conversation's own Api shares with the bot's.
  const fetch = async (_url: string, init?: { body?: unknown }) => {
    const { text } = JSON.parse(String(init?.body ?? "{}")) as { text?: string };
    if (text !== undefined) sent.push(text);
    const result = { message_id: sent.length, date: 0, chat: { id: 5, type: "private" } };
    return new Response(JSON.stringify({ ok: true, result }));
  };
  const bot = new Bot<Outside>("1:test", { botInfo: BOT_INFO, client: { fetch: fetch as never } });
  bot.use(
    conversations<Outside, Context>({ storage: { type: "key", adapter: storage, getStorageKey: () => "5" } }),
  );
  const runs: Array<{ args: unknown; first: string | undefined }> = [];
  async function payout(conversation: Conversation<Outside, Context>, ctx: Context, told: string[] = []) {
    // Once per conversation, not once per replay.
    await conversation.external(() => runs.push({ args: told, first: ctx.message?.text }));
    const answers = [...told];
    while (answers.length < 3) {
      await ctx.reply(`question ${answers.length + 1}`);
      const answer = await conversation.waitFor("message:text");
      answers.push(answer.message.text);
      if (answers.length === 2 && told.length === 0) return continueAsNew(conversation, "payout", answers);
    }
    await ctx.reply(`done: ${answers.join(", ")}`);
  }
  bot.use(createConversation(payout, "payout"), continuation<Outside>("payout"));
  bot.command("go", (ctx) => ctx.conversation.enter("payout"));
  const passedOn: string[] = [];
  bot.on("message:text", (ctx) => {
    passedOn.push(ctx.message.text);
  });
  let updateId = 0;
  const send = (text: string) =>
    bot.handleUpdate({
      update_id: ++updateId,
      message: {
        message_id: updateId,
        date: 0,
        chat: { id: 5, type: "private", first_name: "U" },
        from: { id: 5, is_bot: false, first_name: "U" },
        text,
        ...(text.startsWith("/")
          ? { entities: [{ type: "bot_command", offset: 0, length: text.length }] }
          : {}),
      },
    });
  const stored = () => storage.read("5")?.state.payout ?? [];
  return { send, sent, runs, passedOn, stored };
}

describe("continueAsNew", () => {
  it("ends the conversation and the same update enters the flow again with the arguments; its log starts there", async () => {
    const { send, sent, runs, passedOn, stored } = harness();
    await send("/go");
    await send("first");
    const before = stored()[0]!.replay.send.length;
    await send("second");

    // The handing-over update is the fresh conversation's first context, and nothing else handled it.
    expect(runs).toEqual([
      { args: [], first: "/go" },
      { args: ["first", "second"], first: "second" },
    ]);
    expect(passedOn).toEqual([]);
    const [fresh, ...others] = stored();
    expect(others).toEqual([]);
    expect(JSON.parse(fresh!.args!)).toEqual([["first", "second"]]);
    // The fresh log: its first wait and the question it asked, not the four operations of the first two answers.
    expect(before).toBeGreaterThan(fresh!.replay.send.length);

    await send("third");
    expect(sent).toEqual(["question 1", "question 2", "question 3", "done: first, second, third"]);
    expect(stored()).toEqual([]);
    // With no flow open, messages go on past `continuation` to the handlers after it.
    await send("later");
    expect(passedOn).toEqual(["later"]);
  });
});
