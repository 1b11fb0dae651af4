import { autoRetry } from "@grammyjs/auto-retry";
import { run, sequentialize } from "@grammyjs/runner";
import { Bot, GrammyError, HttpError } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let tg: TelegramEmulator;
beforeEach(async () => {
  tg = await startTelegramEmulator();
});
afterEach(async () => {
  await tg.close();
});

const newBot = () => new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });

describe("injected faults and flood control", () => {
  it("429 with retry_after is retried by @grammyjs/auto-retry and the message is sent once", async () => {
    const bot = newBot();
    bot.api.config.use(autoRetry({ maxRetryAttempts: 3 }));
    const alice = tg.user({ id: 1001, first_name: "Alice", started: true });
    const fault = tg.faults.add({ method: "sendMessage", status: 429, retryAfter: 1, times: 2 });
    const message = await bot.api.sendMessage(alice.id, "after the flood");
    expect(message.text).toBe("after the flood");
    expect(fault.hits).toBe(2);
    expect(fault.remaining).toBe(0);
    const calls = tg.callsTo("sendMessage");
    expect(calls.map((c) => [c.status, c.fault ?? false])).toEqual([
      [429, true],
      [429, true],
      [200, false],
    ]);
    expect(calls[0]!.description).toBe("Too Many Requests: retry after 1");
    expect(alice.messages().map((m) => m.text)).toEqual(["after the flood"]);
  });

  it("5xx faults fail the call without side effects, or after them with phase 'after'", async () => {
    const bot = newBot();
    const alice = tg.user({ id: 1001, first_name: "Alice", started: true });
    tg.faults.add({ method: "SENDMESSAGE", status: 502, chatId: alice.id });
    const error = (await bot.api.sendMessage(alice.id, "lost").catch((e: unknown) => e)) as GrammyError;
    expect(error).toBeInstanceOf(GrammyError);
    expect([error.error_code, error.description]).toEqual([502, "Bad Gateway"]);
    expect(alice.messages()).toEqual([]);

    // The answer is lost but the message went out: a blind retry would send it twice.
    tg.faults.add({ method: "sendMessage", status: 500, phase: "after" });
    await expect(bot.api.sendMessage(alice.id, "sent anyway")).rejects.toThrow(/Internal Server Error/);
    expect(alice.messages().map((m) => m.text)).toEqual(["sent anyway"]);

    tg.faults.add({ method: "sendMessage", networkError: true });
    await expect(bot.api.sendMessage(alice.id, "dropped")).rejects.toBeInstanceOf(HttpError);
    expect(alice.messages().map((m) => m.text)).toEqual(["sent anyway"]);
    expect(tg.faults.active).toBe(0);

    // `when` narrows a fault to matching parameters.
    tg.faults.add({
      method: "sendMessage",
      status: 400,
      description: "Bad Request: custom",
      when: (p) => p.text === "bad",
    });
    await expect(bot.api.sendMessage(alice.id, "bad")).rejects.toThrow("Bad Request: custom");
    await bot.api.sendMessage(alice.id, "good");
  });

  it("enforces Telegram-like flood limits per private chat and per group when enabled", async () => {
    const bot = newBot();
    const alice = tg.user({ id: 1001, first_name: "Alice", started: true });
    const bob = tg.user({ id: 1002, first_name: "Bob", started: true });
    // A refill rate near zero keeps the test independent of how fast the machine is.
    tg.setRateLimits({ privatePerSecond: 0.01, privateBurst: 3, groupPerMinute: 20 });
    for (let i = 0; i < 3; i += 1) await bot.api.sendMessage(alice.id, `burst ${i}`);
    const limited = (await bot.api
      .sendMessage(alice.id, "one too many")
      .catch((e: unknown) => e)) as GrammyError;
    expect(limited.error_code).toBe(429);
    expect(limited.parameters.retry_after).toBeGreaterThanOrEqual(1);
    expect(limited.description).toBe(`Too Many Requests: retry after ${limited.parameters.retry_after}`);
    // Other chats have their own budget.
    await bot.api.sendMessage(bob.id, "fine");

    const ops = tg.group({ title: "Ops" });
    const results = await Promise.allSettled(
      Array.from({ length: 21 }, (_, i) => bot.api.sendMessage(ops.chatId, `alert ${i}`)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(20);
    expect(ops.messages()).toHaveLength(20);
    tg.setRateLimits(false);
    await bot.api.sendMessage(alice.id, "limits off");
  });

  it("works with @grammyjs/runner and sequentialize", async () => {
    const bot = newBot();
    bot.use(sequentialize((ctx) => ctx.chat?.id.toString()));
    bot.on("message:text", (ctx) => ctx.reply(`echo ${ctx.message.text}`));
    const handle = run(bot);
    try {
      const users = [1, 2, 3].map((n) => tg.user({ id: 3000 + n, first_name: `U${n}` }));
      for (const user of users) await user.send(`hi from ${user.id}`);
      for (const user of users) expect((await user.nextMessage()).text).toBe(`echo hi from ${user.id}`);
    } finally {
      await handle.stop();
    }
  });
});
