import { Bot, GrammyError, InlineKeyboard, InputFile } from "grammy";
import type { InlineQueryResultArticle } from "grammy/types";
import QRCode from "qrcode";
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

describe("a real grammY bot on long polling", () => {
  it("gets commands, sends HTML with a keyboard, answers a press and edits the message", async () => {
    const { stop } = await startPollingBot(tg, (bot) => {
      bot.command("start", (ctx) =>
        ctx.reply("<b>Send money</b> to <i>Nigeria</i> &amp; more", {
          parse_mode: "HTML",
          reply_markup: new InlineKeyboard().text("🇳🇬 Nigeria", "country:NG").text("🇰🇪 Kenya", "country:KE"),
        }),
      );
      bot.callbackQuery(/^country:(.+)$/, async (ctx) => {
        await ctx.answerCallbackQuery({ text: `Picked ${ctx.match[1]}` });
        await ctx.editMessageText(`Country: ${ctx.match[1]}`);
      });
    });
    stopBot = stop;
    const alice = tg.user({ id: 1001, first_name: "Alice", language_code: "en" });
    const sent = await alice.send("/start");
    expect(sent.entities).toEqual([{ type: "bot_command", offset: 0, length: 6 }]);

    const menu = await alice.nextMessage();
    expect(menu.text).toBe("Send money to Nigeria & more");
    expect(menu.entities).toEqual([
      { type: "bold", offset: 0, length: 10 },
      { type: "italic", offset: 14, length: 7 },
    ]);
    expect(menu.chat).toMatchObject({ id: 1001, type: "private", first_name: "Alice" });
    expect(menu.from?.id).toBe(tg.bot.id);
    expect(menu.message_id).toBeGreaterThan(sent.message_id);
    expect(menu.date).toBeGreaterThan(1_600_000_000);
    expect(menu.date).toBeLessThan(10_000_000_000);

    const press = await alice.press(menu, "🇳🇬 Nigeria");
    expect(press.data).toBe("country:NG");
    const answer = await press.answer();
    expect(answer).toMatchObject({ text: "Picked NG", showAlert: false, fromId: 1001 });
    const edited = await alice.nextEdit(menu);
    expect(edited.text).toBe("Country: NG");
    // No reply_markup in the edit → the keyboard is gone, as on Telegram.
    expect(edited.reply_markup).toBeUndefined();
    expect(alice.lastMessage()?.text).toBe("Country: NG");
    expect(alice.callbackAnswers().map((a) => a.text)).toEqual(["Picked NG"]);
    await expect(alice.press(edited, /Kenya/)).rejects.toThrow(/no inline keyboard/);
  });

  it("rejects an unchanged edit with Telegram's 'message is not modified' and a missing one with 'not found'", async () => {
    const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    const bob = tg.user({ id: 1002, first_name: "Bob", started: true });
    const message = await bot.api.sendMessage(bob.id, "Status: pending", {
      reply_markup: new InlineKeyboard().text("Refresh", "refresh"),
    });
    const error = await bot.api
      .editMessageText(bob.id, message.message_id, "Status: pending", {
        reply_markup: new InlineKeyboard().text("Refresh", "refresh"),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrammyError);
    expect((error as GrammyError).error_code).toBe(400);
    expect((error as GrammyError).description).toBe(
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );
    // Same text without the keyboard is a change (the keyboard is removed).
    const withoutKeyboard = await bot.api.editMessageText(bob.id, message.message_id, "Status: pending");
    expect(withoutKeyboard).toMatchObject({ text: "Status: pending" });
    expect((withoutKeyboard as { reply_markup?: unknown }).reply_markup).toBeUndefined();
    await expect(bot.api.editMessageText(bob.id, 9999, "x")).rejects.toThrow(/message to edit not found/);
    const markupEdit = await bot.api.editMessageReplyMarkup(bob.id, message.message_id, {
      reply_markup: new InlineKeyboard().text("Done", "done"),
    });
    expect((markupEdit as { reply_markup?: unknown }).reply_markup).toEqual({
      inline_keyboard: [[{ text: "Done", callback_data: "done" }]],
    });
    expect(await bot.api.deleteMessage(bob.id, message.message_id)).toBe(true);
    expect(await bob.nextDeletion(message)).toBe(message.message_id);
    await expect(bot.api.deleteMessage(bob.id, message.message_id)).rejects.toThrow(
      /message to delete not found/,
    );
    expect(bob.messages()).toEqual([]);
  });

  it("uploads a photo as multipart, keeps the bytes, and re-sends it by file_id", async () => {
    const png = await QRCode.toBuffer("lnbc10u1ptest", { type: "png" });
    const { bot, stop } = await startPollingBot(tg, (b) => {
      b.command("invoice", async (ctx) => {
        const sent = await ctx.replyWithPhoto(new InputFile(png, "invoice.png"), {
          caption: "Pay <b>1 000 sats</b>",
          parse_mode: "HTML",
        });
        await ctx.replyWithPhoto(sent.photo.at(-1)!.file_id, { caption: "again" });
        await ctx.replyWithDocument(new InputFile(Buffer.from("a,b\n1,2\n"), "history.csv"));
      });
    });
    stopBot = stop;
    const carol = tg.user({ id: 1003, first_name: "Carol" });
    await carol.send("/invoice");
    const photo = await carol.nextPhoto();
    const fileId = photo.photo!.at(-1)!.file_id;
    expect(Buffer.compare(tg.fileBytes(fileId), png)).toBe(0);
    expect(photo.caption).toBe("Pay 1 000 sats");
    expect(photo.caption_entities).toEqual([{ type: "bold", offset: 4, length: 10 }]);
    expect(photo.photo!.at(-1)).toMatchObject({ width: expect.any(Number), file_size: png.length });
    expect(photo.photo!.at(-1)!.width).toBeGreaterThan(20);
    const again = await carol.nextPhoto();
    expect(again.photo!.at(-1)!.file_id).toBe(fileId);
    const document = await carol.nextDocument();
    expect(document.document).toMatchObject({
      file_name: "history.csv",
      mime_type: "text/csv",
      file_size: 8,
    });
    expect(tg.fileBytes(document.document!.file_id).toString()).toBe("a,b\n1,2\n");
    // getFile + the download route work like api.telegram.org.
    const file = await bot.api.getFile(fileId);
    const download = await fetch(`${tg.apiRoot}/file/bot${tg.token}/${file.file_path}`);
    expect(Buffer.compare(Buffer.from(await download.arrayBuffer()), png)).toBe(0);
    // A document file_id is not a photo, and garbage is not an image.
    await expect(bot.api.sendPhoto(carol.id, document.document!.file_id)).rejects.toThrow(
      /can't use file of type Document as Photo/,
    );
    await expect(bot.api.sendPhoto(carol.id, new InputFile(Buffer.from("not a picture")))).rejects.toThrow(
      /IMAGE_PROCESS_FAILED/,
    );
    await expect(bot.api.sendPhoto(carol.id, fileId, { caption: "x".repeat(1025) })).rejects.toThrow(
      /message caption is too long/,
    );
  });

  it("delivers group commands by privacy mode rules and answers in the group", async () => {
    const { stop } = await startPollingBot(tg, (bot) => {
      bot.command("stats", (ctx) => ctx.reply(`stats for ${ctx.chat.type}`));
      bot.on("message:text", (ctx) => ctx.reply(`heard: ${ctx.message.text}`));
    });
    stopBot = stop;
    const alice = tg.user({ id: 1001, first_name: "Alice" });
    const eve = tg.user({ id: 1005, first_name: "Eve" });
    const ops = tg.group({ id: -100123, title: "Ops" });
    ops.addMember(alice, "administrator").addMember(eve);
    expect(ops.chat.type).toBe("group");

    const command = await ops.send(alice, "/stats@payout_test_bot");
    expect(command.entities).toEqual([{ type: "bot_command", offset: 0, length: 22 }]);
    expect((await ops.nextMessage()).text).toBe("stats for group");

    await ops.send(eve, "just chatting"); // privacy mode: the bot never sees it
    await ops.send(eve, "/stats@some_other_bot"); // addressed to another bot
    await ops.send(alice, "/stats");
    expect((await ops.nextMessage()).text).toBe("stats for group");
    await tg.idle();
    expect(ops.unconsumed()).toEqual([]);

    const stranger = tg.user({ id: 1006, first_name: "Mallory" });
    await expect(ops.send(stranger, "/stats")).rejects.toThrow(/not a member/);
  });

  it("stores commands per scope and language and resolves the menu a client would show", async () => {
    const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    const ops = tg.group({ id: -1001234567890, title: "Ops" });
    const admin = tg.user({ id: 2001, first_name: "Ada", language_code: "fr" });
    const user = tg.user({ id: 2002, first_name: "Uche", language_code: "en" });
    ops.addMember(admin, "administrator");
    expect(ops.chat.type).toBe("supergroup");
    await bot.api.setMyCommands([{ command: "start", description: "Start" }]);
    await bot.api.setMyCommands([{ command: "start", description: "Démarrer" }], { language_code: "fr" });
    await bot.api.setMyCommands([{ command: "stats", description: "Stats" }], {
      scope: { type: "chat_administrators", chat_id: ops.chatId },
    });
    expect(await bot.api.getMyCommands({ language_code: "fr" })).toEqual([
      { command: "start", description: "Démarrer" },
    ]);
    expect(await bot.api.getMyCommands({ language_code: "de" })).toEqual([]);
    expect(tg.commandMenu(admin)).toEqual([{ command: "start", description: "Démarrer" }]);
    expect(tg.commandMenu(user)).toEqual([{ command: "start", description: "Start" }]);
    expect(tg.commandMenu(admin, { chatId: ops.chatId })).toEqual([
      { command: "stats", description: "Stats" },
    ]);
    await bot.api.deleteMyCommands({ language_code: "fr" });
    expect(tg.commandMenu(admin)).toEqual([{ command: "start", description: "Start" }]);
    await expect(bot.api.setMyCommands([{ command: "Bad-Name", description: "x" }])).rejects.toThrow(
      /BOT_COMMAND_INVALID/,
    );
    const members = await bot.api.getChatAdministrators(ops.chatId);
    expect(members.map((m) => [m.user.id, m.status])).toEqual([[2001, "administrator"]]);
    expect((await bot.api.getChatMember(ops.chatId, user.id)).status).toBe("left");
    expect((await bot.api.getChat(ops.chatId)).title).toBe("Ops");
  });

  it("answers 403 for users who never started the bot or blocked it, and tells the bot", async () => {
    const { bot, stop } = await startPollingBot(tg, (b) => {
      b.on("my_chat_member", (ctx) => {
        seen.push(ctx.myChatMember.new_chat_member.status);
      });
    });
    const seen: string[] = [];
    stopBot = stop;
    const dan = tg.user({ id: 1004, first_name: "Dan" });
    await expect(bot.api.sendMessage(dan.id, "hi")).rejects.toThrow(
      "Forbidden: bot can't initiate conversation with a user",
    );
    await dan.send("/start");
    await bot.api.sendMessage(dan.id, "hi");
    dan.block();
    const error = (await bot.api.sendMessage(dan.id, "still there?").catch((e: unknown) => e)) as GrammyError;
    expect([error.error_code, error.description]).toEqual([403, "Forbidden: bot was blocked by the user"]);
    await tg.idle();
    expect(seen).toEqual(["kicked"]);
    await expect(bot.api.sendMessage(424242, "x")).rejects.toThrow("Bad Request: chat not found");
  });

  it("tells an administrator bot that asked for them of members' role changes (chat_member)", async () => {
    const seen: string[] = [];
    const { bot, stop } = await startPollingBot(
      tg,
      (b) => {
        b.on("chat_member", (ctx) => {
          const { old_chat_member: before, new_chat_member: now } = ctx.chatMember;
          seen.push(`${ctx.from.first_name}: ${now.user.first_name} ${before.status} → ${now.status}`);
        });
      },
      { allowedUpdates: ["message", "chat_member"] },
    );
    stopBot = stop;
    const ada = tg.user({ id: 1101, first_name: "Ada" });
    const ben = tg.user({ id: 1102, first_name: "Ben" });
    const ops = tg
      .group({ id: -100124, title: "Ops" })
      .addMember(ada, "creator")
      .addMember(ben, "administrator");
    // A bot that is only a member is not told.
    ops.setMemberStatus(ben, "member", ada);
    expect((await bot.api.getChatMember(ops.chatId, ben.id)).status).toBe("member");
    ops.setBotStatus("administrator", ada);
    ops.setMemberStatus(ben, "administrator", ada);
    ops.setMemberStatus(ben, "restricted", ada);
    await tg.idle();
    expect(seen).toEqual(["Ada: Ben member → administrator", "Ada: Ben administrator → restricted"]);
    expect((await bot.api.getChatMember(ops.chatId, ben.id)).status).toBe("restricted");
  });

  it("times out with a report of what the bot did instead", async () => {
    const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    const erin = tg.user({ id: 1007, first_name: "Erin", started: true });
    await bot.api.sendMessage(erin.id, "Hello Erin", { reply_markup: new InlineKeyboard().text("OK", "ok") });
    await bot.api.sendMessage(erin.id, "x".repeat(4097)).catch(() => undefined);
    await erin.nextMessage();
    const error = (await erin
      .nextMessage({ timeoutMs: 300, match: /Quote/ })
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("waiting for a new bot message matching /Quote/ in chat 1007 (Erin)");
    expect(error.message).toContain("✓ message");
    expect(error.message).toContain('"Hello Erin" [OK]');
    expect(error.message).toContain("sendMessage failed: 400 Bad Request: message is too long");
    await expect(erin.press(erin.lastMessage()!, "Cancel")).rejects.toThrow(/No button "Cancel".*\n.*\[OK\]/);
  });
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
    const me = (await (await fetch(`${tg.apiRoot}/bot${tg.token}/getMe`)).json()) as { result: object };
    expect(me.result).toMatchObject({ supports_inline_queries: true });
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
