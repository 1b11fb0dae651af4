import { type GrammyError, InlineKeyboard } from "grammy";
import type { InlineQueryResultArticle } from "grammy/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";
import { startPollingBot } from "./helpers.ts";

let tg: TelegramEmulator;
let stopBot: (() => Promise<void>) | undefined;

beforeEach(async () => {
  tg = await startTelegramEmulator({ bot: { username: "payout_test_bot", first_name: "Payout" } });
});
afterEach(async () => {
  await stopBot?.();
  stopBot = undefined;
  await tg.close();
});

function article(id: string, text: string): InlineQueryResultArticle {
  return {
    type: "article",
    id,
    title: `Card ${id}`,
    input_message_content: { message_text: text, parse_mode: "HTML" },
    reply_markup: new InlineKeyboard().url("Open", "https://t.me/payout_test_bot?start=card"),
  };
}

describe("inline mode", () => {
  it("delivers inline queries, records the answer, posts a picked result via the bot and reports it", async () => {
    const chosen: string[] = [];
    const refusals: string[] = [];
    const { stop } = await startPollingBot(
      tg,
      (bot) => {
        bot.on("inline_query", async (ctx) => {
          const query = ctx.inlineQuery.query;
          if (query === "dupes") {
            await ctx
              .answerInlineQuery([article("a", "x"), article("a", "y")])
              .catch((error: GrammyError) => refusals.push(error.description));
            await ctx
              .answerInlineQuery(Array.from({ length: 51 }, (_, i) => article(`r${i}`, "x")))
              .catch((error: GrammyError) => refusals.push(error.description));
          }
          await ctx.answerInlineQuery([article("card-1", `<b>Hello</b> ${query}`)], {
            cache_time: 0,
            is_personal: true,
            button: { text: "New", start_parameter: "new_card" },
          });
          await ctx.answerInlineQuery([]).catch((error: GrammyError) => refusals.push(error.description));
        });
        bot.on("chosen_inline_result", (ctx) => {
          chosen.push(`${ctx.chosenInlineResult.result_id}:${ctx.chosenInlineResult.query}`);
        });
      },
      { allowedUpdates: ["message", "inline_query", "chosen_inline_result"] },
    );
    stopBot = stop;
    expect((await fetch(`${tg.apiRoot}/bot${tg.token}/getMe`).then((r) => r.json())).result).toMatchObject({
      supports_inline_queries: true,
    });
    const alice = tg.user({ id: 2001, first_name: "Alice" });
    const bob = tg.user({ id: 2002, first_name: "Bob" });
    const family = tg.group({ title: "Family" }).addMember(alice).addMember(bob);

    const answer = await alice.inlineQuery("dupes").answer();
    expect(refusals.slice(0, 2)).toEqual([
      "Bad Request: RESULT_ID_DUPLICATE",
      "Bad Request: RESULTS_TOO_MUCH",
    ]);
    expect(answer).toMatchObject({
      query: "dupes",
      fromId: 2001,
      isPersonal: true,
      cacheTime: 0,
      button: { text: "New", start_parameter: "new_card" },
    });
    expect(answer.results.map((result) => result.id)).toEqual(["card-1"]);
    await tg.idle();
    // Answered once, like Telegram: the second answer is refused.
    expect(refusals[2]).toMatch(/query is too old/);

    const posted = await family.sendInlineResult(alice, answer, "card-1");
    expect(posted).toMatchObject({
      text: "Hello dupes",
      from: { id: 2001 },
      via_bot: { username: "payout_test_bot" },
    });
    expect(posted.entities).toEqual([{ type: "bold", offset: 0, length: 5 }]);
    expect(posted.reply_markup?.inline_keyboard[0]?.[0]).toMatchObject({
      url: "https://t.me/payout_test_bot?start=card",
    });
    await expect(family.sendInlineResult(alice, answer, "missing")).rejects.toThrow(/No inline result/);
    await expect.poll(() => chosen).toEqual(["card-1:dupes"]);

    // A t.me link to the bot opens like a client opens it: /start with the payload.
    const start = await bob.openLink("https://t.me/payout_test_bot?start=card");
    expect(start.text).toBe("/start card");
    await expect(bob.openLink("https://example.com/x")).rejects.toThrow(/not a link to @payout_test_bot/);
  });

  it("drops chosen_inline_result for a bot whose allowed_updates leave it out", async () => {
    const seen: string[] = [];
    const { stop } = await startPollingBot(
      tg,
      (bot) => {
        bot.on("inline_query", (ctx) => ctx.answerInlineQuery([article("only", "text")]));
        bot.on("chosen_inline_result", () => {
          seen.push("chosen");
        });
        bot.command("ping", (ctx) => ctx.reply("pong"));
      },
      { allowedUpdates: ["message", "inline_query"] },
    );
    stopBot = stop;
    const alice = tg.user({ id: 2011, first_name: "Alice" });
    const answer = await alice.inlineQuery("x").answer();
    await alice.sendInlineResult(answer, "only");
    await alice.send("/ping");
    await alice.nextMessage({ match: "pong" });
    await tg.idle();
    expect(seen).toEqual([]);
  });
});
