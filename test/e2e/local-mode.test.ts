import { afterEach, describe, expect, it } from "vitest";
import { type SpawnedBot, spawnBot, stopAllBots } from "../support/spawn-bot.ts";

/**
 * `npm start` with no configuration at all: the sandbox, the Telegram emulator, a private redis-server and the bot
 * start in one process, and the terminal is the chat (typed lines in, the bot's messages and numbered buttons out).
 */
describe("local mode (npm start with no configuration)", () => {
  afterEach(async () => {
    await stopAllBots();
  });

  const type = (bot: SpawnedBot, line: string) => bot.child.stdin?.write(`${line}\n`);

  it("gives a usable chat in the terminal and shuts everything down on :quit", async () => {
    const bot = spawnBot({
      inheritEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdin: "pipe",
    });
    await bot.waitForLog("this terminal is your Telegram chat", { timeoutMs: 60_000 });

    type(bot, "/start");
    await bot.waitForLog(/Hi You/, { timeoutMs: 20_000 });
    await bot.waitForLog(/\[1\] 💸 Send money/);

    type(bot, "1");
    await bot.waitForLog(/Where does it go\?/, { timeoutMs: 20_000 });
    await bot.waitForLog(/🇳🇬 Nigeria · bank account · minimum ₦2,000\.00/);

    type(bot, ":help");
    await bot.waitForLog(/:pay/);

    type(bot, ":quit");
    const exit = await bot.exited;
    expect(exit).toMatchObject({ code: 0 });
    // Nothing but the chat on the terminal: the logs went to .tmp/local.log.
    expect(bot.lines.some((line) => line.raw.startsWith('{"level"'))).toBe(false);
  });
});
