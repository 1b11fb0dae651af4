import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type SpawnedBot, spawnBot, spawnedBotEnv, stopAllBots } from "../support/spawn-bot.ts";
import { pressAndEdit, typeAndRead } from "./payout-support.ts";

/**
 * The bot as a real child process (`node --import tsx src/main.ts`, as production runs it) against the emulator,
 * the sandbox and Redis owned by the test: killed mid-conversation, a new process picks the flow up where it was.
 */
describe("restarting the bot process", () => {
  let tg: TelegramEmulator;
  let sandbox: Sandbox;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    await redis.flushdb();
    tg = await startTelegramEmulator();
    sandbox = await startSandbox({ port: 0 });
  });
  afterEach(async () => {
    await stopAllBots();
  });
  afterAll(async () => {
    await tg?.close();
    await sandbox?.close();
    await redis?.quit();
  });

  const start = async (): Promise<SpawnedBot> => {
    const bot = spawnBot({
      env: spawnedBotEnv({ tg, sandbox, redisUrl: testRedisUrl() }),
    });
    await bot.waitForLog(/bot started/, { timeoutMs: 30_000 });
    return bot;
  };

  it("resumes a conversation after the process is killed, and exits cleanly on SIGTERM", async () => {
    const first = await start();
    const user = tg.user({ id: 8101, first_name: "Tunde" });
    await user.send("/send");
    const countries = await user.nextMessage({ match: /Where does it go/ });
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(user, "gtb", /Banks matching/);

    // No goodbye: the process dies between two steps of the flow (after the step was handled and saved).
    await tg.idle({ quietMs: 300, timeoutMs: 10_000 });
    const killed = await first.kill("SIGKILL");
    expect(killed.signal).toBe("SIGKILL");

    const second = await start();
    await pressAndEdit(user, results, "GTBANK PLC", /10-digit account number/);
    const confirm = await typeAndRead(user, "0149200000", /belongs to/);
    expect(confirm.text).toContain("OLADEJI OLAOLU");

    const stopped = await second.kill("SIGTERM");
    expect(stopped).toMatchObject({ code: 0, forced: false });
    expect(second.logs().some((line) => line.msg === "bot stopped")).toBe(true);
  });

  it("refuses to start with a bad configuration, listing every problem without echoing secrets", async () => {
    const bot = spawnBot({
      inheritEnv: false,
      env: {
        PATH: process.env.PATH,
        BOT_MODE: "sideways",
        PAYOUT_API_BASE_URL: "https://api.example.com/api/v1",
        PAYOUT_API_KEY: "sk_live_do_not_print_me",
        REDIS_URL: "http://nope",
      },
    });
    const exit = await bot.exited;
    expect(exit.code).toBe(1);
    const output = bot.lines.map((line) => line.raw).join("\n");
    expect(output).toMatch(/BOT_MODE/);
    expect(output).toMatch(/REDIS_URL/);
    expect(output).toMatch(/PAYOUT_WEBHOOK_SECRET/);
    expect(output).not.toContain("sk_live_do_not_print_me");
    expect(output).not.toMatch(/\n\s+at /);
  });
});
