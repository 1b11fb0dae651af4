import { Bot, InlineKeyboard, InputFile } from "grammy";
import QRCode from "qrcode";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let tg: TelegramEmulator;
let bot: Bot;
beforeEach(async () => {
  tg = await startTelegramEmulator({ callbackAnswerTimeoutMs: 2_000 });
  bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
});
afterEach(async () => {
  await tg.close();
});

describe("callback answers, captions, media edits and chat actions", () => {
  it("refuses a second answer to the same press with Telegram's 'query is too old'", async () => {
    const alice = tg.user({ id: 1001, first_name: "Alice", started: true });
    const menu = await bot.api.sendMessage(alice.id, "Pick", {
      reply_markup: new InlineKeyboard().text("A", "a"),
    });
    const press = await alice.press(menu, { data: "a" });
    const update = tg.pendingUpdates().find((u) => u.callback_query)!;
    expect(update.callback_query).toMatchObject({
      id: press.queryId,
      from: { id: 1001, first_name: "Alice", is_bot: false },
      data: "a",
      message: { message_id: menu.message_id, text: "Pick" },
    });
    expect(update.callback_query!.chat_instance).toMatch(/^\d+$/);
    expect(await bot.api.answerCallbackQuery(press.queryId, { text: "ok", show_alert: true })).toBe(true);
    await expect(bot.api.answerCallbackQuery(press.queryId)).rejects.toThrow(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    await expect(bot.api.answerCallbackQuery("12345")).rejects.toThrow(/query is too old/);
    expect(alice.callbackAnswers()).toEqual([
      expect.objectContaining({
        queryId: press.queryId,
        text: "ok",
        showAlert: true,
        data: "a",
        chatId: 1001,
      }),
    ]);
  });

  it("refuses an answer that comes after the callback window", async () => {
    await tg.close();
    tg = await startTelegramEmulator({ callbackAnswerTimeoutMs: 1 });
    bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    const alice = tg.user({ id: 1001, first_name: "Alice", started: true });
    const menu = await bot.api.sendMessage(alice.id, "Pick", {
      reply_markup: new InlineKeyboard().text("A", "a"),
    });
    const press = await alice.press(menu, "A");
    await new Promise((resolve) => setTimeout(resolve, 20)); // well past the 1 ms window
    await expect(bot.api.answerCallbackQuery(press.queryId)).rejects.toThrow(/query is too old/);
  });

  it("edits captions and swaps media, keeping the message id", async () => {
    const carol = tg.user({ id: 1003, first_name: "Carol", started: true });
    const qr = await QRCode.toBuffer("lnbc1", { type: "png" });
    const photo = await bot.api.sendPhoto(carol.id, new InputFile(qr, "qr.png"), {
      caption: "Pay within 10:00",
      reply_markup: new InlineKeyboard().text("Cancel", "cancel"),
    });
    const captioned = await bot.api.editMessageCaption(carol.id, photo.message_id, { caption: "Paid ✅" });
    expect(captioned).toMatchObject({ caption: "Paid ✅", message_id: photo.message_id });
    expect((captioned as { reply_markup?: unknown }).reply_markup).toBeUndefined();
    await expect(
      bot.api.editMessageCaption(carol.id, photo.message_id, { caption: "Paid ✅" }),
    ).rejects.toThrow(/message is not modified/);
    const receipt = await bot.api.editMessageMedia(carol.id, photo.message_id, {
      type: "document",
      media: new InputFile(Buffer.from("receipt"), "receipt.txt"),
      caption: "Receipt",
    });
    expect(receipt).toMatchObject({ document: { file_name: "receipt.txt" }, caption: "Receipt" });
    expect((receipt as { photo?: unknown }).photo).toBeUndefined();
    expect((await carol.nextEdit(photo, { match: "Paid" })).caption).toBe("Paid ✅");
    expect((await carol.nextEdit(photo)).document?.file_name).toBe("receipt.txt");
    const text = await bot.api.sendMessage(carol.id, "plain");
    await expect(bot.api.editMessageCaption(carol.id, text.message_id, { caption: "x" })).rejects.toThrow(
      /there is no caption in the message to edit/,
    );
    await expect(bot.api.editMessageText(carol.id, photo.message_id, "x")).rejects.toThrow(
      /there is no text in the message to edit/,
    );
  });

  it("records chat actions, replies and reply keyboards", async () => {
    const dan = tg.user({ id: 1004, first_name: "Dan" });
    const question = await dan.send("what is the rate?");
    expect(await bot.api.sendChatAction(dan.id, "typing")).toBe(true);
    await expect(bot.api.sendChatAction(dan.id, "dancing" as "typing")).rejects.toThrow(
      /wrong parameter action/,
    );
    const answer = await bot.api.sendMessage(dan.id, "1 BTC = ₦100,000,000", {
      reply_parameters: { message_id: question.message_id },
      reply_markup: { keyboard: [[{ text: "NGN" }, { text: "KES" }]], one_time_keyboard: true },
    });
    expect(answer.reply_to_message?.text).toBe("what is the rate?");
    expect((answer as { reply_markup?: unknown }).reply_markup).toBeUndefined();
    expect(dan.replyKeyboard()).toEqual([[{ text: "NGN" }, { text: "KES" }]]);
    await bot.api.sendMessage(dan.id, "ok", { reply_markup: { remove_keyboard: true } });
    expect(dan.replyKeyboard()).toBeUndefined();
    expect(dan.events().map((e) => e.kind)).toEqual(["chat_action", "message", "message"]);
    expect((await dan.waitFor((e) => e.kind === "chat_action")).kind).toBe("chat_action");
    await expect(bot.api.sendMessage(dan.id, "x", { reply_parameters: { message_id: 999 } })).rejects.toThrow(
      /message to be replied not found/,
    );
  });
});
