import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "#src/standins/local/redis-server.js";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { type RedisOnPort, startRedisOnPort } from "../support/redis-on-port.ts";
import { type LogLine, type SpawnedBot, spawnBot, spawnedBotEnv, stopAllBots } from "../support/spawn-bot.ts";

/**
 * The bot as production runs it (a spawned `node --import tsx src/main.ts`, JSON logs) with its Redis away: at
 * start, then while running. The log gets one line per retry interval naming the address, the reason and what
 * waits, with no stack and no password, and nothing else (BullMQ's connections, queues and workers stay quiet);
 * when Redis comes back the bot connects and answers. REDIS_RETRY_MS is 250 here so a 2.5 s window holds ~10
 * tries: the same ratio as the default 2 s over 20 s (it was 391 lines, most with a stack, in 15 s).
 */
const RETRY_MS = 250;
const WINDOW_MS = 2_500;
const PASSWORD = "hunter2-never-in-the-log";

describe("the log while Redis is unreachable", () => {
  let tg: TelegramEmulator;
  let sandbox: Sandbox;
  let redis: RedisOnPort | undefined;
  beforeAll(async () => {
    tg = await startTelegramEmulator();
    sandbox = await startSandbox({ port: 0 });
  });
  afterEach(async () => {
    await stopAllBots();
    await redis?.stop();
  });
  afterAll(async () => {
    await tg?.close();
    await sandbox?.close();
  });

  it("says once per retry where Redis is and what waits, then connects when it is back", async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const bot = spawnBot({
      env: spawnedBotEnv(
        { tg, sandbox, redisUrl: `redis://:${PASSWORD}@${address}/0` },
        { REDIS_RETRY_MS: String(RETRY_MS) },
      ),
    });

    // Nothing listens on the port yet: the start waits for Redis.
    const atStart = await linesOfOutage(bot, /redis: cannot reach/);
    expectOneLinePerRetry(atStart, address, "the bot starts once it answers");

    redis = await startRedisOnPort(port, PASSWORD);
    await bot.waitForLog(`redis: connected to ${address}`);
    await bot.waitForLog("bot started", { timeoutMs: 30_000 });

    // Redis dies under a running bot (its queues' workers included).
    await redis.stop();
    const running = await linesOfOutage(bot, /redis: cannot reach .*updates, webhooks and deliveries wait/);
    expectOneLinePerRetry(running, address, "updates, webhooks and deliveries wait until it answers");

    redis = await startRedisOnPort(port, PASSWORD);
    await bot.waitForLog(new RegExp(`redis: connected to ${address} again after \\d`));
    const user = tg.user({ id: 9401, first_name: "Amara" });
    await user.send("/start");
    expect((await user.nextMessage({ timeoutMs: 15_000 })).text).toBeTruthy();
    expect(bot.lines.map((line) => line.raw).join("\n")).not.toContain(PASSWORD);
  }, 60_000);

  it("stops the start with one line when Redis refuses the password, which no retry fixes", async () => {
    const port = await freePort();
    redis = await startRedisOnPort(port, PASSWORD);
    const bot = spawnBot({
      env: spawnedBotEnv({ tg, sandbox, redisUrl: `redis://:not-the-password@127.0.0.1:${port}/0` }),
    });
    expect((await bot.exited).code).toBe(1);
    const stderr = bot.lines.filter((line) => line.stream === "stderr").map((line) => line.raw);
    expect(stderr).toEqual([
      `redis: 127.0.0.1:${port} answered "WRONGPASS invalid username-password pair or user is disabled.": ` +
        "check REDIS_URL",
    ]);
    const output = bot.lines.map((line) => line.raw).join("\n");
    expect(output).not.toContain("not-the-password");
    expect(output).not.toMatch(/stack|\bat .*:\d+:\d+/);
  });
});

/** Every line the bot printed from the first one matching `first` until WINDOW_MS later. */
async function linesOfOutage(bot: SpawnedBot, first: RegExp): Promise<LogLine[]> {
  const line = await bot.waitForLog(first, { timeoutMs: 30_000 });
  const from = bot.lines.indexOf(line);
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  return bot.lines.slice(from);
}

function expectOneLinePerRetry(lines: readonly LogLine[], address: string, waiting: string) {
  const tries = WINDOW_MS / RETRY_MS;
  expect(lines.length).toBeGreaterThanOrEqual(tries / 2);
  expect(lines.length).toBeLessThanOrEqual(tries + 2);
  for (const line of lines) {
    // Nothing but the outage line: no stack, no error object, no BullMQ or ioredis chatter on either stream.
    expect(line.stream).toBe("stdout");
    expect(line).toMatchObject({ level: 40, dependency: "redis", address, reason: "ECONNREFUSED" });
    expect(line.msg).toMatch(new RegExp(`^redis: cannot reach ${address} \\(ECONNREFUSED\\)`));
    expect(line.msg).toContain(`${waiting}, trying again every 0.25 s`);
    expect(line).not.toHaveProperty("err");
    expect(line.raw).not.toMatch(/stack|\bat .*:\d+:\d+/);
  }
}
