import { PassThrough } from "node:stream";
import { type Bot, InlineKeyboard, InputFile, Keyboard } from "grammy";
import QRCode from "qrcode";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTerminalChat, type TerminalChat } from "#src/standins/local/terminal-chat.js";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";
import { startPollingBot } from "./helpers.ts";

let tg: TelegramEmulator;
let stop: (() => Promise<void>) | undefined;
let chat: TerminalChat | undefined;
beforeEach(async () => {
  tg = await startTelegramEmulator({ bot: { first_name: "Payout", username: "payout_bot" } });
});
afterEach(async () => {
  chat?.close();
  await stop?.();
  await tg.close();
});

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { input, output, text: () => text, type: (line: string) => input.write(`${line}\n`) };
}

function payoutBot(bot: Bot) {
  bot.command("start", (ctx) =>
    ctx.reply('<b>Welcome</b>, see <a href="https://example.com/help">help</a> or <code>/cancel</code>', {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard()
        .text("Confirm", "confirm")
        .text("Cancel", "cancel")
        .row()
        .url("Docs", "https://example.com"),
    }),
  );
  bot.callbackQuery("confirm", async (ctx) => {
    await ctx.answerCallbackQuery({ text: "Confirmed!" });
    await ctx.editMessageText("Order confirmed");
    const png = await QRCode.toBuffer("lnbc1qr", { type: "png" });
    await ctx.replyWithPhoto(new InputFile(png, "qr.png"), { caption: "Scan to pay" });
    await ctx.replyWithDocument(new InputFile(Buffer.alloc(2048, 1), "receipt.pdf"));
  });
  bot.command("amount", (ctx) =>
    ctx.reply("How much?", { reply_markup: new Keyboard().text("500").text("1000") }),
  );
  bot.on("message:text", (ctx) => ctx.reply(`you said ${ctx.message.text}`));
}

describe("the terminal chat", () => {
  it("renders messages, presses buttons by number, shows edits, photos and documents", async () => {
    ({ stop } = await startPollingBot(tg, payoutBot));
    const alice = tg.user({ id: 1001, first_name: "Alice" });
    const term = terminal();
    chat = startTerminalChat({
      emulator: tg,
      user: alice,
      input: term.input,
      output: term.output,
      color: false,
    });

    term.type("/start");
    await alice.nextMessage();
    expect(term.text()).toContain("🤖 Payout");
    expect(term.text()).toContain("Welcome, see help (https://example.com/help) or /cancel");
    expect(term.text()).toContain("[1] Confirm  [2] Cancel");
    expect(term.text()).toContain("[3] Docs ↗");

    term.type("3"); // a URL button only shows its link
    term.type("1");
    await alice.nextEdit();
    await alice.nextPhoto();
    await alice.nextDocument();
    expect(term.text()).toContain("↗ Docs: https://example.com");
    expect(term.text()).toContain("💬 Confirmed!");
    expect(term.text()).toContain("✎ (edited) message");
    expect(term.text()).toContain("Order confirmed");
    expect(term.text()).toMatch(/[█▀▄]{20,}/);
    expect(term.text()).toContain("Scan to pay");
    expect(term.text()).toContain("📄 receipt.pdf (2.0 KB, application/pdf)");
    expect(alice.callbackAnswers().map((a) => a.data)).toEqual(["confirm"]);

    // Numbers outside the buttons are text; :say sends a number literally.
    term.type("42");
    expect((await alice.nextMessage()).text).toBe("you said 42");
  });

  it("renders bold and code with ANSI colours and maps reply-keyboard numbers to their text", async () => {
    ({ stop } = await startPollingBot(tg, payoutBot));
    const bob = tg.user({ id: 1002, first_name: "Bob" });
    const term = terminal();
    chat = startTerminalChat({
      emulator: tg,
      user: bob,
      input: term.input,
      output: term.output,
      color: true,
    });
    term.type("/start");
    await bob.nextMessage();
    expect(term.text()).toContain("\x1b[1mWelcome\x1b[22m");
    expect(term.text()).toContain("\x1b[36m/cancel\x1b[39m");
    term.type("/amount");
    await bob.nextMessage();
    expect(term.text()).toContain("(1) 500  (2) 1000");
    term.type("2");
    expect((await bob.nextMessage()).text).toBe("you said 1000");
    term.type(":say 1");
    expect((await bob.nextMessage()).text).toBe("you said 1");
  });

  it("hands unknown :commands to the launcher and quits on :quit or end of input", async () => {
    const carol = tg.user({ id: 1003, first_name: "Carol" });
    const term = terminal();
    const seen: string[][] = [];
    let quits = 0;
    chat = startTerminalChat({
      emulator: tg,
      user: carol,
      input: term.input,
      output: term.output,
      onLocalCommand: (name, args, c) => {
        if (name !== "pay") return false;
        seen.push(args);
        c.print("paid the last invoice");
        return true;
      },
      localHelp: [":pay        simulate paying the last invoice"],
      onQuit: () => {
        quits += 1;
      },
    });
    term.type(":pay now");
    term.type(":nope");
    term.type(":help");
    term.type(":quit");
    await chat.closed;
    expect(seen).toEqual([["now"]]);
    expect(term.text()).toContain("paid the last invoice");
    expect(term.text()).toContain("unknown command :nope");
    expect(term.text()).toContain(":pay        simulate paying the last invoice");
    expect(quits).toBe(1);

    const dave = tg.user({ id: 1004, first_name: "Dave" });
    const second = terminal();
    let ended = false;
    chat = startTerminalChat({
      emulator: tg,
      user: dave,
      input: second.input,
      output: second.output,
      onQuit: () => {
        ended = true;
      },
    });
    second.type("hello");
    second.input.end();
    await chat.closed;
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(true);
    expect(tg.pendingUpdates().map((u) => u.message?.text)).toEqual(["hello"]);
  });
});
