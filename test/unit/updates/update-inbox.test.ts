import type { Update } from "grammy/types";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "#src/log/logger.js";
import { createMemoryRedis } from "#src/standins/local/memory-redis.js";
import { HeldWrites, keys, ProcessRegistry, StaleLeaseError, UpdateRepository } from "#src/store/index.js";
import { chatOfUpdate, createCallRecorder, createUpdateInbox } from "#src/updates/index.js";
import { freshRedis } from "../../support/redis.ts";

const logger = createLogger({ level: "silent", pretty: false });

const message = (updateId: number, chatId: number, text: string): Update =>
  ({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: chatId, type: "private", first_name: "T" },
      from: { id: chatId, is_bot: false, first_name: "T" },
      text,
    },
  }) as Update;

/** A process's heartbeat (ProcessRegistry's key), written by hand to control its lifetime. */
const beat = (redis: Redis, owner: string, ttlMs: number) => redis.set(keys.process(owner), "1", "PX", ttlMs);

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// The same scripts run on real Redis and on local mode's in-memory stand-in (ioredis-mock's Lua).
describe.each([
  ["redis-server", () => freshRedis()],
  ["in-memory stand-in", () => createMemoryRedis()],
] as const)("the update inbox repository on %s", (_name, connect) => {
  let redis: Redis;
  let repo: UpdateRepository;
  let held: HeldWrites;

  beforeAll(async () => {
    redis = await connect();
  });
  beforeEach(async () => {
    await redis.flushdb();
    held = new HeldWrites();
    repo = new UpdateRepository(redis, held, 60_000);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("records an update_id once and keeps each chat's updates in arrival order", async () => {
    expect(await repo.record("7", 10, '{"n":10}')).toBe(true);
    expect(await repo.record("7", 10, '{"n":10}')).toBe(false);
    expect(await repo.record("7", 12, '{"n":12}')).toBe(true);
    expect(await repo.record("7", 11, '{"n":11}')).toBe(true);
    expect(await repo.record("8", 13, '{"n":13}')).toBe(true);
    expect((await repo.readyChats()).sort()).toEqual(["7", "8"]);

    await beat(redis, "A", 5_000);
    const seen: number[] = [];
    let claim = await repo.acquire("7", "A");
    while (claim) {
      seen.push(claim.updateId);
      claim = await repo.ack(claim, "A");
    }
    expect(seen).toEqual([10, 12, 11]);
    expect(await repo.readyChats()).toEqual(["8"]);
    // Acknowledged ids stay known: a redelivery is still ignored.
    expect(await repo.record("7", 10, '{"n":10}')).toBe(false);
    expect(await redis.exists(keys.updateLease("7"))).toBe(0);
  });

  it("refuses the lease to others while its owner is alive, and hands it over once the heartbeat lapses", async () => {
    await repo.record("7", 1, "{}");
    await beat(redis, "A", 300);
    await beat(redis, "B", 5_000);
    const first = await repo.acquire("7", "A");
    expect(first?.attempt).toBe(1);
    expect(await repo.acquire("7", "B")).toBeUndefined();
    // A stops beating (its process died): B takes the chat over with a higher fencing token, same update.
    await waitUntil(async () => (await redis.exists(keys.process("A"))) === 0, "A's heartbeat to lapse");
    const taken = await repo.acquire("7", "B");
    expect(taken).toMatchObject({ updateId: 1, attempt: 2 });
    expect(taken?.token).toBeGreaterThan(first?.token ?? Infinity);

    // Fencing: A (back from a long pause) cannot acknowledge, and nothing changes.
    await expect(repo.ack(first!, "A")).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await repo.renew(first!, "A")).toBe(false);
    await repo.release(first!, "A");
    expect(await repo.queued("7")).toBe(1);
    expect(await repo.ack(taken!, "B")).toBeUndefined();
    expect(await repo.queued("7")).toBe(0);
  });

  it("records and takes the lease in one step: the chat's head update when free, nothing when held or seen", async () => {
    await beat(redis, "A", 5_000);
    await beat(redis, "B", 5_000);
    // Free: the update is recorded and handed out at once.
    const first = await repo.recordAndAcquire("7", 20, '{"n":20}', "A");
    expect(first).toMatchObject({
      fresh: true,
      claim: { chat: "7", updateId: 20, json: '{"n":20}', attempt: 1 },
    });
    // Held by a live owner (another process, or this one): recorded and queued behind, no claim.
    expect(await repo.recordAndAcquire("7", 21, '{"n":21}', "B")).toEqual({ fresh: true });
    expect(await repo.recordAndAcquire("7", 22, '{"n":22}', "A")).toEqual({ fresh: true });
    // Seen before: nothing recorded, nothing taken.
    expect(await repo.recordAndAcquire("7", 21, '{"n":21}', "B")).toEqual({ fresh: false });
    expect(await repo.queued("7")).toBe(3);

    // The holder goes on through the queue in order under the same lease.
    const next = await repo.ack(first.claim!, "A");
    expect(next).toMatchObject({ updateId: 21, token: first.claim!.token });
    expect(await repo.ack(next!, "A")).toMatchObject({ updateId: 22 });

    // A chat whose earlier update is still queued (its process died): the claim is that older head, retried.
    await repo.record("8", 30, '{"n":30}');
    await repo.acquire("8", "gone");
    await redis.del(keys.process("gone"));
    const taken = await repo.recordAndAcquire("8", 31, '{"n":31}', "B");
    expect(taken).toMatchObject({ fresh: true, claim: { updateId: 30, attempt: 2 } });
  });

  it("commits the chat state an update wrote with its acknowledgement, and none of it on a stale one", async () => {
    await beat(redis, "A", 5_000);
    await repo.record("7", 40, "{}");
    await redis.set("session:7", "old", "EX", 600);
    await redis.set("conv:7", "old");
    const claim = await repo.acquire("7", "A");
    // Every byte value: the deflated conversation state is binary.
    const packed = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    const writes = await repo.holdingStateWrites(async () => {
      await Promise.resolve();
      expect(held.hold({ key: "session:7", value: '{"a":1}', ttlSeconds: 3_600 })).toBe(true);
      expect(held.hold({ key: "conv:7", value: packed, ttlSeconds: 0 })).toBe(true);
      expect(held.hold({ key: "conv:8", value: null, ttlSeconds: 0 })).toBe(true);
    });
    await redis.set("conv:8", "someone's");
    // Held: nothing is written before the acknowledgement.
    expect(await redis.get("session:7")).toBe("old");

    // Another process took the chat over: the stale acknowledgement writes nothing.
    const stale = { ...claim!, token: claim!.token - 1 };
    await expect(repo.ack(stale, "A", writes)).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await redis.get("session:7")).toBe("old");
    expect(await redis.get("conv:8")).toBe("someone's");

    expect(await repo.ack(claim!, "A", writes)).toBeUndefined();
    expect(await redis.get("session:7")).toBe('{"a":1}');
    expect(await redis.ttl("session:7")).toBeGreaterThan(3_590);
    expect((await redis.getBuffer("conv:7"))?.equals(packed)).toBe(true);
    expect(await redis.ttl("conv:7")).toBe(-1);
    expect(await redis.exists("conv:8")).toBe(0);
    expect(await repo.queued("7")).toBe(0);
  });

  it("keeps recorded Telegram answers until the update is acknowledged", async () => {
    await repo.record("7", 5, "{}");
    await beat(redis, "A", 5_000);
    const claim = await repo.acquire("7", "A");
    await repo.recordCall(5, 1, "first", true);
    await repo.recordCall(5, 2, "second", false);
    expect([...(await repo.recordedCalls(5)).entries()]).toEqual([
      [1, "first"],
      [2, "second"],
    ]);
    await repo.ack(claim!, "A");
    expect((await repo.recordedCalls(5)).size).toBe(0);
  });
});

describe("the update inbox", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await freshRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("maps updates to the chat key sessions use", () => {
    expect(chatOfUpdate(message(1, 42, "hi"))).toBe("42");
    expect(
      chatOfUpdate({
        update_id: 2,
        callback_query: { id: "q", from: { id: 43 }, chat_instance: "c", message: { chat: { id: -5 } } },
      } as unknown as Update),
    ).toBe("-5");
    expect(
      chatOfUpdate({
        update_id: 3,
        callback_query: { id: "q", from: { id: 43 }, chat_instance: "c" },
      } as unknown as Update),
    ).toBe("43");
  });

  it("handles one chat in order across two processes, other chats in parallel, and drops a poison update after N tries", async () => {
    await redis.flushdb();
    const repo = new UpdateRepository(redis, new HeldWrites(), 60_000);
    const recorder = createCallRecorder(repo, logger, async () => ({ status: 200, json: async () => ({}) }));
    const handled: number[] = [];
    let inChat7 = 0;
    let overlap = false;
    let poisonTries = 0;
    const handle = async (update: Update) => {
      if (update.message?.text === "poison") {
        poisonTries += 1;
        throw new Error("always fails");
      }
      if (update.message?.chat.id === 7) {
        inChat7 += 1;
        if (inChat7 > 1) overlap = true;
        await new Promise((resolve) => setTimeout(resolve, 15));
        inChat7 -= 1;
      }
      handled.push(update.update_id);
    };
    // Two processes, each with its own heartbeat.
    const registries = [new ProcessRegistry(redis), new ProcessRegistry(redis)];
    for (const registry of registries) await registry.start();
    const make = (processes: ProcessRegistry) =>
      createUpdateInbox({
        repo,
        recorder,
        handle,
        logger,
        processes,
        maxAttempts: 3,
        retryMs: 10,
        sweepMs: 200,
      });
    const a = make(registries[0]!);
    const b = make(registries[1]!);
    await a.start();
    await b.start();
    // The same chat's updates arrive at both processes, interleaved.
    for (let id = 1; id <= 10; id += 1) await (id % 2 ? a : b).record([message(id, 7, `m${id}`)]);
    await b.record([message(11, 8, "other chat"), message(12, 9, "poison"), message(13, 9, "after poison")]);
    await waitUntil(() => handled.length === 12, "every good update handled");
    expect(overlap).toBe(false);
    expect(handled.filter((id) => id <= 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The poison update was tried 3 times, then dropped; the chat went on.
    expect(poisonTries).toBe(3);
    expect(handled).toContain(13);
    await waitUntil(async () => (await repo.readyChats()).length === 0, "the ready set to drain");
    await a.stop();
    await b.stop();
    for (const registry of registries) await registry.stop();
  });

  it("answers a re-handled update's calls from the record: only calls not made before reach Telegram", async () => {
    await redis.flushdb();
    const repo = new UpdateRepository(redis, new HeldWrites(), 60_000);
    const sent: string[] = [];
    const recorder = createCallRecorder(repo, logger, async (url) => {
      const method = url.slice(url.lastIndexOf("/") + 1);
      sent.push(method);
      return { status: 200, json: async () => ({ ok: true, result: { method, n: sent.length } }) };
    });
    const call = async (method: string) => {
      const response = await recorder.fetch(`http://telegram/bot1:x/${method}`);
      return (await response.json()) as { result: { n: number } };
    };
    // First attempt: two calls complete, then the process "dies" before the third.
    const first = await recorder.run(77, 1, async () => [
      await call("editMessageText"),
      await call("sendPhoto"),
    ]);
    expect(sent).toEqual(["editMessageText", "sendPhoto"]);
    // Second attempt: the same two calls get the recorded answers, the third goes out.
    const second = await recorder.run(77, 2, async () => [
      await call("editMessageText"),
      await call("sendPhoto"),
      await call("sendMessage"),
    ]);
    expect(sent).toEqual(["editMessageText", "sendPhoto", "sendMessage"]);
    expect(second.slice(0, 2)).toEqual(first);
    // A third attempt that takes another path: from the first mismatch on, everything goes out.
    await recorder.run(77, 3, async () => [await call("editMessageText"), await call("deleteMessage")]);
    expect(sent).toEqual(["editMessageText", "sendPhoto", "sendMessage", "deleteMessage"]);
    // Outside update handling nothing is recorded.
    await call("sendMessage");
    expect(sent).toHaveLength(5);
    expect((await repo.recordedCalls(77)).size).toBe(3);
  });

  it("numbers a callback query's answer but does not record it: Telegram refuses a second answer itself", async () => {
    await redis.flushdb();
    const repo = new UpdateRepository(redis, new HeldWrites(), 60_000);
    const sent: string[] = [];
    const answered = new Set<string>();
    const recorder = createCallRecorder(repo, logger, async (url) => {
      const method = url.slice(url.lastIndexOf("/") + 1);
      sent.push(method);
      if (method === "answerCallbackQuery" && answered.has(method))
        return {
          status: 400,
          json: async () => ({ ok: false, error_code: 400, description: "Bad Request: query is too old" }),
        };
      answered.add(method);
      return { status: 200, json: async () => ({ ok: true, result: { method, n: sent.length } }) };
    });
    const press = (attempt: number) =>
      recorder.run(90, attempt, async () => [
        await (await recorder.fetch("http://telegram/bot1:x/answerCallbackQuery")).json(),
        await (await recorder.fetch("http://telegram/bot1:x/editMessageText")).json(),
      ]);
    const first = await press(1);
    expect([...(await repo.recordedCalls(90)).keys()]).toEqual([2]);
    // Handled again: the answer goes out and is refused as done; the edit is the recorded one, not sent again.
    const again = await press(2);
    expect(sent).toEqual(["answerCallbackQuery", "editMessageText", "answerCallbackQuery"]);
    expect(again).toEqual([{ ok: true, result: true }, first[1]]);
  });

  it("numbers a removal of buttons but does not record it: made again, it finds them gone, which reads as done", async () => {
    await redis.flushdb();
    const repo = new UpdateRepository(redis, new HeldWrites(), 60_000);
    const sent: string[] = [];
    /** Messages whose buttons are off, as Telegram keeps them. */
    const bare = new Set<string>();
    const recorder = createCallRecorder(repo, logger, async (url, init) => {
      const method = url.slice(url.lastIndexOf("/") + 1);
      const body = String((init as { body?: string } | undefined)?.body ?? "{}");
      sent.push(method);
      if (method === "editMessageReplyMarkup") {
        const { message_id: id, reply_markup: markup } = JSON.parse(body) as {
          message_id: number;
          reply_markup?: unknown;
        };
        if (!markup && bare.has(String(id)))
          return {
            status: 400,
            json: async () => ({
              ok: false,
              error_code: 400,
              description:
                "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
            }),
          };
        if (markup) bare.delete(String(id));
        else bare.add(String(id));
      }
      return { status: 200, json: async () => ({ ok: true, result: { method, n: sent.length } }) };
    });
    const edit = (payload: object) =>
      recorder.fetch("http://telegram/bot1:x/editMessageReplyMarkup", {
        method: "POST",
        body: JSON.stringify(payload),
      } as RequestInit);
    const typedAnswer = (attempt: number) =>
      recorder.run(91, attempt, async () => [
        await (await edit({ chat_id: 5, message_id: 40 })).json(),
        await (await recorder.fetch("http://telegram/bot1:x/sendMessage")).json(),
      ]);
    const first = await typedAnswer(1);
    expect([...(await repo.recordedCalls(91)).keys()]).toEqual([2]);
    // Handled again: the removal goes out, finds no buttons and reads as done; the message is the recorded one.
    const again = await typedAnswer(2);
    expect(sent).toEqual(["editMessageReplyMarkup", "sendMessage", "editMessageReplyMarkup"]);
    expect(again).toEqual([{ ok: true, result: true }, first[1]]);

    // Setting buttons is recorded as any other call: made again it could fail where the first attempt did not.
    await recorder.run(92, 1, async () =>
      (await edit({ chat_id: 5, message_id: 41, reply_markup: {} })).json(),
    );
    expect([...(await repo.recordedCalls(92)).keys()]).toEqual([1]);
  });

  it("answers an expired callback query's toast as done, so a late re-handled press still does its step", async () => {
    const repo = new UpdateRepository(redis, new HeldWrites(), 60_000);
    const recorder = createCallRecorder(repo, logger, async () => ({
      status: 400,
      json: async () => ({
        ok: false,
        error_code: 400,
        description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
      }),
    }));
    const answer = await recorder.run(88, 2, async () =>
      (await recorder.fetch("http://telegram/bot1:x/answerCallbackQuery")).json(),
    );
    expect(answer).toEqual({ ok: true, result: true });
    // Other failures stay failures.
    const other = await recorder.run(89, 1, async () =>
      (await recorder.fetch("http://telegram/bot1:x/sendMessage")).json(),
    );
    expect(other).toMatchObject({ ok: false, error_code: 400 });
  });
});
