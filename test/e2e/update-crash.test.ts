import type { Message } from "grammy/types";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { keys } from "#src/store/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type SpawnedBot, spawnBot, spawnedBotEnv, stopAllBots } from "../support/spawn-bot.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  buttons,
  confirmQuote,
  current,
  nigerianRecipient,
  pressAndEdit,
  quoteFor,
  startSend,
  typeAndRead,
} from "./payout-support.ts";

const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

/**
 * The bot as a real process, SIGKILLed while an update is being handled: the update was recorded in the inbox
 * (and confirmed to Telegram), so the next process handles it again. Calls that completed before the kill are
 * answered from the record (not sent twice); the call in flight is made again. The chat's state (session,
 * conversation) is committed with the update's acknowledgement, so an update handled to the end but not
 * acknowledged is handled again from the state it first started from.
 */
// Two bot processes started per test on a loaded machine: a generous bound, nothing is timed.
describe("an update in flight when the process is killed", () => {
  let tg: TelegramEmulator;
  let sandbox: Sandbox;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    await redis.flushdb();
    tg = await startTelegramEmulator({ defaultTimeoutMs: 20_000 });
    sandbox = await startSandbox({ port: 0 });
  });
  afterEach(async () => {
    await stopAllBots();
    tg.faults.clear();
  });
  afterAll(async () => {
    await tg?.close();
    await sandbox?.close();
    await redis?.quit();
  });

  const start = async (redisUrl = testRedisUrl()): Promise<SpawnedBot> => {
    const bot = spawnBot({ env: spawnedBotEnv({ tg, sandbox, redisUrl }) });
    await bot.waitForLog(/bot started/, { timeoutMs: 30_000 });
    return bot;
  };

  /** Resolves when the emulator receives the call `fault` matches (which then waits, and never takes effect). */
  const stallNext = (method: string, chatId: number, match?: RegExp): Promise<void> =>
    new Promise((resolve) => {
      tg.faults.add({
        method,
        chatId,
        delayMs: 8_000,
        networkError: true,
        when: (params) => {
          if (match && !match.test(String(params.text ?? params.caption ?? ""))) return false;
          resolve();
          return true;
        },
      });
    });

  const ordersOf = async (userId: number) => (await redis.zrange(keys.userOrders(userId), 0, -1)).length;

  const statusKnows = async (user: UserDriver, orderId: string) => {
    await user.send("/status");
    const status = await user.nextMessage({ match: orderId });
    expect(status.text).toMatch(/Waiting for payment/);
  };

  /**
   * A bot process on a Redis user of its own, whose right to run scripts a test can take away (the acknowledgement
   * is a script), and a user walked to the account-number screen on it.
   */
  const onRevocableUser = async (aclUser: string, userId: number, firstName: string) => {
    const aclPassword = `${aclUser}-secret`;
    await redis.acl("SETUSER", aclUser, "reset", "on", `>${aclPassword}`, "~*", "&*", "+@all");
    const asAclUser = new URL(testRedisUrl());
    asAclUser.username = aclUser;
    asAclUser.password = aclPassword;
    const bot = await start(asAclUser.toString());
    const user = tg.user({ id: userId, first_name: firstName });
    const queue = keys.updateQueue(String(user.id));
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(user, "gtb", /Banks matching/);
    await pressAndEdit(user, results, "GTBANK PLC", /10-digit account number/);
    /** Telegram holds the next `method` whose text matches for 500 ms, while Redis stops running the bot's scripts. */
    const revokeScriptsAt = (method: string, text: RegExp) => {
      let revoked = false;
      tg.faults.add({
        method,
        chatId: user.id,
        delayMs: 500,
        when: (params) => {
          if (revoked || !text.test(String(params.text))) return false;
          revoked = true;
          void redis.acl("SETUSER", aclUser, "-@scripting");
          return true;
        },
      });
    };
    return { bot, user, queue, revokeScriptsAt };
  };

  it("a screen Telegram showed just as the process died is shown again; the first copy's buttons still work", async () => {
    const first = await start();
    const user = tg.user({ id: 8304, first_name: "Efe" });
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(user, "gtb", /Banks matching/);
    await pressAndEdit(user, results, "GTBANK PLC", /10-digit account number/);
    // "belongs to" reaches the user, and the process dies before it hears back: the restarted process handles the
    // account number again and cannot know the first copy arrived, so the user sees the screen twice.
    let killed = false;
    tg.faults.add({
      method: "sendMessage",
      chatId: user.id,
      when: (params) => {
        if (!killed && /belongs to/.test(String(params.text))) {
          killed = true;
          first.child.kill("SIGKILL");
        }
        return false;
      },
    });
    await user.send("0149200000");
    const firstCopy = await user.nextMessage({ match: /belongs to/ });
    expect((await first.exited).signal).toBe("SIGKILL");
    const second = await start();
    const secondCopy = await user.nextMessage({ match: /belongs to/ });
    expect(secondCopy.message_id).toBeGreaterThan(firstCopy.message_id);
    // The user answers the copy they read first.
    const amount = await pressAndEdit(user, firstCopy, /Yes, that's them/, /How much/);
    expect(amount.message_id).toBe(firstCopy.message_id);
    const card = await quoteFor(user, "10,000");
    expect(buttons(card).some((text) => /Confirm/.test(text))).toBe(true);
    await second.kill("SIGTERM");
  }, 90_000);

  it("the same for every flow: a buy screen shown twice takes its answer from the first copy", async () => {
    const first = await start();
    const user = tg.user({ id: 8305, first_name: "Funmi" });
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    let killed = false;
    tg.faults.add({
      method: "sendMessage",
      chatId: user.id,
      when: (params) => {
        if (!killed && /Step 2 of 3/.test(String(params.text))) {
          killed = true;
          first.child.kill("SIGKILL");
        }
        return false;
      },
    });
    await user.send(TESTNET_ADDRESS);
    const firstCopy = await user.nextMessage({ match: "Step 2 of 3" });
    expect((await first.exited).signal).toBe("SIGKILL");
    const second = await start();
    const secondCopy = await user.nextMessage({ match: "Step 2 of 3" });
    expect(secondCopy.message_id).toBeGreaterThan(firstCopy.message_id);
    // The user answers the copy they read first: that is the speed step's answer, and neither copy keeps buttons.
    await (await user.press(firstCopy, /Fast/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    expect(user.message(firstCopy.message_id)?.reply_markup).toBeUndefined();
    expect(user.message(secondCopy.message_id)?.reply_markup).toBeUndefined();
    expect(user.message(secondCopy.message_id)?.text).toBe("Delivery speed: ⚡ Fast · about 10–30 min");
    await user.send("30000");
    const quote = await user.nextMessage({ match: "Your bitcoin quote" });
    expect(quote.text).toContain("⚡ Fast");
    await second.kill("SIGTERM");
  }, 90_000);

  it("handled to the end, killed before its acknowledgement: handled again from the same state, nothing sent twice", async () => {
    // Redis refuses the acknowledgement: the bot's Redis user loses the right to run scripts the moment Telegram
    // receives the update's last message. (Written before the acknowledgement, the conversation would be a step
    // ahead and take the re-handled update as the answer to its next question.)
    const aclUser = "ack-crash";
    const { bot: first, user, queue, revokeScriptsAt } = await onRevocableUser(aclUser, 8311, "Ifeoma");
    await waitFor(async () => (await redis.llen(queue)) === 0, "the bank press to be acknowledged");
    const conversationBefore = await redis.getBuffer(`conv:${user.id}`);
    expect(conversationBefore?.length).toBeGreaterThan(0);

    // Telegram holds the name check for 500 ms, time enough for Redis to stop running the bot's scripts.
    revokeScriptsAt("sendMessage", /belongs to/);
    await user.send("0149200000");
    const nameCheck = await user.nextMessage({ match: /belongs to/ });
    await first.waitForLog(/update inbox failed/, { timeoutMs: 15_000 });
    await first.kill("SIGKILL");
    await redis.acl("SETUSER", aclUser, "+@all");

    // Nothing of the handling was committed: the update is still queued, the conversation as it was.
    expect(await redis.llen(queue)).toBe(1);
    expect((await redis.getBuffer(`conv:${user.id}`))?.equals(conversationBefore!)).toBe(true);

    user.consumeAll();
    const sentBefore = tg.callsTo("sendMessage").length;
    const second = await start(testRedisUrl());
    await waitFor(
      async () => (await redis.llen(queue)) === 0,
      "the next process to handle the update again and acknowledge it",
    );
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
    await redis.acl("DELUSER", aclUser);
  }, 90_000);

  it("the press that hands the payout flow to a fresh conversation, not acknowledged: handed over again, one amount screen", async () => {
    // As above, Redis stops running the bot's scripts the moment Telegram receives the amount screen: the old
    // conversation ended and the fresh one began within an update that is never acknowledged.
    const aclUser = "handover-crash";
    const { bot: first, user, queue, revokeScriptsAt } = await onRevocableUser(aclUser, 8312, "Jide");
    const nameCheck = await typeAndRead(user, "0149200000", /belongs to/);
    await waitFor(async () => (await redis.llen(queue)) === 0, "the account number to be acknowledged");
    const conversationBefore = await redis.getBuffer(`conv:${user.id}`);

    revokeScriptsAt("editMessageText", /How much/);
    await (await user.press(nameCheck, /Yes, that's them/)).answer();
    const amountScreens = () =>
      tg
        .callsTo("editMessageText")
        .filter(
          (call) => Number(call.params.chat_id) === user.id && /How much/.test(String(call.params.text)),
        );
    await waitFor(() => amountScreens().length === 1, "the amount screen to reach Telegram");
    await first.waitForLog(/update inbox failed/, { timeoutMs: 15_000 });
    await first.kill("SIGKILL");
    await redis.acl("SETUSER", aclUser, "+@all");
    // Nothing committed: the press still queued, the old conversation as it was.
    expect(await redis.llen(queue)).toBe(1);
    expect((await redis.getBuffer(`conv:${user.id}`))?.equals(conversationBefore!)).toBe(true);

    const second = await start(testRedisUrl());
    await waitFor(async () => (await redis.llen(queue)) === 0, "the next process to hand over again");
    await tg.idle({ quietMs: 300, timeoutMs: 15_000 });
    // The fresh conversation's screen was answered from the record: still one amount screen.
    expect(amountScreens()).toHaveLength(1);
    const amount = current(user, nameCheck);
    expect(amount.text).toMatch(/How much/);
    // The fresh conversation takes the amount.
    const card = await quoteFor(user, "10,000");
    expect(buttons(card).some((text) => /Confirm/.test(text))).toBe(true);
    await second.kill("SIGTERM");
    await redis.acl("DELUSER", aclUser);
  }, 90_000);

  it("Confirm while the invoice is being sent: after restart the invoice and the status card arrive once", async () => {
    const first = await start();
    const user = tg.user({ id: 8301, first_name: "Bisi" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "10,000");
    const quotesBefore = sandbox.state.quotes.size;

    const stalled = stallNext("sendPhoto", user.id);
    await (await user.press(card, /Confirm/)).answer();
    await stalled;
    await first.kill("SIGKILL");
    const confirmedEdits = () =>
      tg.callsTo("editMessageText").filter((call) => /Pay the invoice below/.test(String(call.params.text)));
    expect(confirmedEdits()).toHaveLength(1);

    const second = await start();
    const photo = await user.nextPhoto();
    const invoice = await user.nextMessage({ match: /^ln/ });
    const statusCard = await user.nextMessage({ match: /Waiting for payment/ });
    expect(photo.photo?.length).toBeGreaterThan(0);
    expect(invoice.text).toMatch(/^lnbc|^lntb/);
    await tg.idle({ quietMs: 300, timeoutMs: 15_000 });
    // Completed before the kill: recorded, not sent again (one "Confirmed" edit).
    expect(confirmedEdits()).toHaveLength(1);
    expect(tg.callsTo("sendPhoto").filter((call) => call.ok)).toHaveLength(1);
    expect(sandbox.state.quotes.size).toBe(quotesBefore);
    expect(await ordersOf(user.id)).toBe(1);
    const orderId = /order (\S+)/.exec(statusCard.text ?? "")?.[1] ?? "";
    expect(orderId).not.toBe("");
    user.consumeAll();
    await statusKnows(user, orderId.replace(/[^\w-]/g, ""));
    await second.kill("SIGTERM");
  }, 90_000);

  it("a quote in flight: after restart the user gets that quote's card, Confirm works, and the sandbox holds one quote", async () => {
    const first = await start();
    const user = tg.user({ id: 8302, first_name: "Chidi" });
    await nigerianRecipient(user);
    const quotesBefore = sandbox.state.quotes.size;
    await fetch(`${sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "POST /quote", mode: "delay", delayMs: 3_000 }),
    });
    await user.send("10,000");
    // The fault is consumed when the request arrives: the quote is in flight.
    await waitFor(async () => {
      const faults = (await (await fetch(`${sandbox.origin}/_sandbox/faults`)).json()) as { data: unknown[] };
      return faults.data.length === 0;
    }, "the quote request to reach the sandbox");
    // Its body is a few hundred bytes sent with the headers; let it land before the client dies.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await first.kill("SIGKILL");
    user.consumeAll();

    const second = await start();
    // The amount message is handled again. Its quote claim names the dead process: it is taken over, the order
    // listing read first, and the quote the interrupted request made is adopted — the user's answer is its card.
    const card: Message = await user.nextMessage();
    expect(card.text).toMatch(/Your quote/);
    expect(buttons(card).some((text) => /Confirm/.test(text))).toBe(true);
    const { invoice, status } = await confirmQuote(user, card);
    expect(invoice.text).toMatch(/^lnbc|^lntb/);
    await tg.idle({ quietMs: 300, timeoutMs: 15_000 });
    // The interrupted request was never sent again: one quote, the one the card and the status card are about.
    expect(sandbox.state.quotes.size).toBe(quotesBefore + 1);
    const made = [...sandbox.state.quotes.values()].at(-1)!;
    expect(status.text).toContain(made.orderId);
    expect(await ordersOf(user.id)).toBe(1);
    // One card for this user (the first process died before sending one).
    const cards = tg
      .callsTo("sendMessage")
      .filter(
        (call) =>
          call.ok && Number(call.params.chat_id) === user.id && /Your quote/.test(String(call.params.text)),
      );
    expect(cards).toHaveLength(1);
    await second.kill("SIGTERM");
  }, 90_000);

  it("buy Confirm while the status card is being sent: after restart the card arrives and /status knows it", async () => {
    const first = await start();
    const user = tg.user({ id: 8303, first_name: "Dayo" });
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send(TESTNET_ADDRESS);
    await (await user.press(await user.nextMessage({ match: "Step 2 of 3" }), /Fast/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    await user.send("30000");
    const quote = await user.nextMessage({ match: "Your bitcoin quote" });
    const quotesBefore = sandbox.state.quotes.size;

    const stalled = stallNext("sendMessage", user.id, /Bitcoin purchase/);
    await (await user.press(quote, "✅ Confirm")).answer();
    await stalled;
    await first.kill("SIGKILL");

    const second = await start();
    const card = await user.nextMessage({ match: "Bitcoin purchase" });
    await tg.idle({ quietMs: 300, timeoutMs: 15_000 });
    const cards = tg
      .callsTo("sendMessage")
      .filter((call) => call.ok && /Bitcoin purchase/.test(String(call.params.text)));
    expect(cards).toHaveLength(1);
    expect(sandbox.state.quotes.size).toBe(quotesBefore);
    expect(await ordersOf(user.id)).toBe(1);
    const orderId = /order (\S+)/.exec(card.text ?? "")?.[1] ?? "";
    user.consumeAll();
    await statusKnows(user, orderId.replace(/[^\w-]/g, ""));
    await second.kill("SIGTERM");
  }, 90_000);
});

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
