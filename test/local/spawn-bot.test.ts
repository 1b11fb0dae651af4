import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnBot, stopAllBots } from "../support/spawn-bot.ts";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let tg: TelegramEmulator;
beforeEach(async () => {
  tg = await startTelegramEmulator({ bot: { username: "echo_test_bot" } });
});
afterEach(async () => {
  await stopAllBots();
  await tg.close();
});
afterAll(stopAllBots);

describe("spawnBot", () => {
  it("runs a bot process against the emulator, exposes its pino lines and stops it with SIGTERM", async () => {
    const bot = spawnBot({
      entry: "test/local/fixtures/echo-bot.ts",
      env: { BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot },
    });
    const started = await bot.waitForLog("bot started");
    expect(started).toMatchObject({
      msg: "bot started",
      username: "echo_test_bot",
      level: 30,
      stream: "stdout",
    });

    const alice = tg.user({ id: 1001, first_name: "Alice" });
    await alice.send("ping");
    expect((await alice.nextMessage()).text).toBe("echo: ping");

    const exit = await bot.kill("SIGTERM");
    expect(exit).toEqual({ code: 0, signal: null, forced: false });
    expect(bot.logs().map((line) => line.msg)).toEqual(["bot started", "shutting down", "stopped"]);
    // The graceful stop confirmed the last update: nothing would be re-delivered to the next instance.
    expect(tg.pendingUpdates()).toEqual([]);
  });

  it("fails fast with the child's output when it exits before logging what a test waits for", async () => {
    const bot = spawnBot({ entry: "test/local/fixtures/echo-bot.ts", env: { CRASH_ON_START: "1" } });
    const error = (await bot.waitForLog("bot started").catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("exited (code 3");
    expect(error.message).toContain("[stderr] fatal: configuration is broken");
    expect((await bot.exited).code).toBe(3);
  });
});
