import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Bot, webhookCallback } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let tg: TelegramEmulator;
let server: Server | undefined;

beforeEach(async () => {
  tg = await startTelegramEmulator({ webhookRetryBaseMs: 20, webhookRetryMaxMs: 100 });
});
afterEach(async () => {
  await tg.close();
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram`;
}

describe("webhook mode", () => {
  it("pushes updates to grammY's webhookCallback with the secret header, and the bot replies", async () => {
    const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    bot.command("start", (ctx) => ctx.reply(`hello ${ctx.from?.first_name}`));
    bot.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: "pressed", show_alert: true }));
    const callback = webhookCallback(bot, "http", { secretToken: "s3cr3t_token" });
    const secrets: (string | undefined)[] = [];
    const url = await listen((req, res) => {
      secrets.push(req.headers["x-telegram-bot-api-secret-token"] as string | undefined);
      void callback(req, res);
    });
    await bot.api.setWebhook(url, { secret_token: "s3cr3t_token" });
    expect((await bot.api.getWebhookInfo()).url).toBe(url);

    const alice = tg.user({ id: 1001, first_name: "Alice" });
    await alice.send("/start");
    const reply = await alice.nextMessage();
    expect(reply.text).toBe("hello Alice");
    await bot.api.editMessageReplyMarkup(alice.id, reply.message_id, {
      reply_markup: { inline_keyboard: [[{ text: "Tap", callback_data: "tap" }]] },
    });
    const pressed = await alice.press(reply, "Tap");
    expect(await pressed.answer()).toMatchObject({ text: "pressed", showAlert: true });
    expect(secrets).toEqual(["s3cr3t_token", "s3cr3t_token"]);
    await tg.idle();
    expect(tg.pendingUpdates()).toEqual([]);
    // While the webhook is set, polling is refused like on Telegram.
    await expect(bot.api.getUpdates()).rejects.toThrow(/can't use getUpdates method while webhook is active/);
  });

  it("rejects a wrong secret at the bot and retries failed deliveries until the bot takes them", async () => {
    const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    bot.on("message:text", (ctx) => ctx.reply(`got ${ctx.message.text}`));
    const callback = webhookCallback(bot, "http", { secretToken: "right" });
    let failuresLeft = 2;
    let statuses: number[] = [];
    let onStatus = () => {};
    const url = await listen((req, res) => {
      res.on("finish", () => {
        statuses.push(res.statusCode);
        onStatus();
      });
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        res.writeHead(500).end();
        return;
      }
      void callback(req, res);
    });
    await bot.api.setWebhook(url, { secret_token: "right" });
    const bob = tg.user({ id: 1002, first_name: "Bob" });
    await bob.send("first");
    expect((await bob.nextMessage()).text).toBe("got first");
    await tg.idle(); // the 200 goes out after the handler's reply
    expect(statuses).toEqual([500, 500, 200]);
    const info = await bot.api.getWebhookInfo();
    expect(info.pending_update_count).toBe(0);

    // The bot's check of the secret token: a wrong one gets 401 and Telegram keeps retrying.
    statuses = [];
    const twoRejections = new Promise<void>((resolve) => {
      onStatus = () => statuses.length >= 2 && resolve();
    });
    await bot.api.setWebhook(url, { secret_token: "wrong" });
    await bob.send("second");
    await twoRejections;
    expect(statuses.slice(0, 2)).toEqual([401, 401]);
    expect(bob.unconsumed()).toEqual([]);
    expect((await bot.api.getWebhookInfo()).last_error_message).toBe("Wrong response from the webhook: 401");
    await bot.api.setWebhook(url, { secret_token: "right" });
    expect((await bob.nextMessage()).text).toBe("got second");
  });

  it("executes a webhook reply (a method in the response body) and drops pending updates on request", async () => {
    const url = await listen((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        const update = JSON.parse(body) as { message: { chat: { id: number } } };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ method: "sendMessage", chat_id: update.message.chat.id, text: "replied inline" }),
        );
      });
    });
    const carol = tg.user({ id: 1003, first_name: "Carol" });
    await carol.send("queued before the webhook");
    const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
    await bot.api.setWebhook(url, { drop_pending_updates: true });
    await carol.send("hi");
    expect((await carol.nextMessage()).text).toBe("replied inline");
    await tg.idle();
    expect(carol.unconsumed()).toEqual([]);
    expect(await bot.api.deleteWebhook()).toBe(true);
    expect((await bot.api.getWebhookInfo()).url).toBe("");
  });
});
