import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { keys } from "#src/store/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type SpawnedBot, spawnBot, spawnedBotEnv, stopAllBots } from "../support/spawn-bot.ts";
import { pressAndEdit, startSend, typeAndRead } from "./payout-support.ts";

/**
 * The bot as a real process that handles an update to the end and dies before acknowledging it. Redis refuses the
 * acknowledgement (the bot's Redis user loses the right to run scripts the moment Telegram receives the update's
 * last message), the process is SIGKILLed, and the next process handles the update again. The chat's state is
 * committed with the acknowledgement, so the update is handled from the state it first started from: its Telegram
 * calls are answered from the record and the user sees nothing twice. (Written just before the acknowledgement,
 * the conversation would be a step ahead and take the re-handled update as the answer to its next question.)
 */
describe("an update handled to the end by a process that dies before acknowledging it", () => {
  const ACL_USER = "ack-crash";
  const ACL_PASSWORD = "ack-crash-secret";
  let tg: TelegramEmulator;
  let sandbox: Sandbox;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    await redis.flushdb();
    await redis.acl("SETUSER", ACL_USER, "reset", "on", `>${ACL_PASSWORD}`, "~*", "&*", "+@all");
    tg = await startTelegramEmulator({ defaultTimeoutMs: 20_000 });
    sandbox = await startSandbox({ port: 0 });
  });
  afterEach(async () => {
    await stopAllBots();
    tg.faults.clear();
  });
  afterAll(async () => {
    await redis?.acl("DELUSER", ACL_USER);
    await tg?.close();
    await sandbox?.close();
    await redis?.quit();
  });

  const start = async (redisUrl: string): Promise<SpawnedBot> => {
    const bot = spawnBot({ env: spawnedBotEnv({ tg, sandbox, redisUrl }) });
    await bot.waitForLog(/bot started/, { timeoutMs: 30_000 });
    return bot;
  };

  const asAclUser = (): string => {
    const url = new URL(testRedisUrl());
    url.username = ACL_USER;
    url.password = ACL_PASSWORD;
    return url.toString();
  };

  it("the account number handled again shows its name check once, and the user goes on from it", async () => {
    const first = await start(asAclUser());
    const user = tg.user({ id: 8311, first_name: "Ifeoma" });
    const queue = keys.updateQueue(String(user.id));
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(user, "gtb", /Banks matching/);
    await pressAndEdit(user, results, "GTBANK PLC", /10-digit account number/);
    // The bank press acknowledged, with its conversation state.
    await vi.waitFor(async () => expect(await redis.llen(queue)).toBe(0), { timeout: 20_000, interval: 25 });
    const conversationBefore = await redis.getBuffer(`conv:${user.id}`);
    expect(conversationBefore?.length).toBeGreaterThan(0);

    // Telegram holds the name check for 500 ms, time enough for Redis to stop running the bot's scripts.
    let revoked: Promise<unknown> | undefined;
    tg.faults.add({
      method: "sendMessage",
      chatId: user.id,
      delayMs: 500,
      when: (params) => {
        if (revoked || !/belongs to/.test(String(params.text))) return false;
        revoked = redis.acl("SETUSER", ACL_USER, "-@scripting");
        return true;
      },
    });
    await user.send("0149200000");
    const nameCheck = await user.nextMessage({ match: /belongs to/ });
    await first.waitForLog(/update inbox failed/, { timeoutMs: 15_000 });
    await first.kill("SIGKILL");
    await redis.acl("SETUSER", ACL_USER, "+@all");

    // Nothing of the handling was committed: the update is still queued, the conversation as it was.
    expect(await redis.llen(queue)).toBe(1);
    expect((await redis.getBuffer(`conv:${user.id}`))?.equals(conversationBefore!)).toBe(true);

    user.consumeAll();
    const sentBefore = tg.callsTo("sendMessage").length;
    const second = await start(testRedisUrl());
    // The next process handles the update again and acknowledges it.
    await vi.waitFor(async () => expect(await redis.llen(queue)).toBe(0), { timeout: 20_000, interval: 25 });
    await tg.idle({ quietMs: 300, timeoutMs: 15_000 });
    // Answered from the record: no second name check, and nothing else either.
    const sentAgain = tg
      .callsTo("sendMessage")
      .slice(sentBefore)
      .filter((call) => Number(call.params.chat_id) === user.id);
    expect(sentAgain).toHaveLength(0);
    expect(user.unconsumed()).toEqual([]);

    const amount = await pressAndEdit(user, nameCheck, /Yes, that's them/, /How much/);
    expect(amount.message_id).toBe(nameCheck.message_id);
    await second.kill("SIGTERM");
  }, 90_000);
});
