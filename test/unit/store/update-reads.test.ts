import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore, keys, type Store } from "#src/store/index.js";
import { BOTH_STORES } from "../../support/store-fixtures.ts";

/**
 * The commands this client sends from now on (names), to count round trips; undefined on the in-memory stand-in,
 * which sends nothing anywhere (it runs the same scripts, so it is checked for what they answer).
 */
function countCommands(redis: Redis): string[] | undefined {
  if (typeof redis.sendCommand !== "function") return undefined;
  const sent: string[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: { name: string }, stream?: unknown) => {
    sent.push(command.name);
    return send(command as never, stream as never);
  }) as typeof redis.sendCommand;
  return sent;
}

const state = (userId: number) => ({ userId, sessionKey: String(userId), conversationKey: `conv:${userId}` });

describe.each(BOTH_STORES)("UpdateReads on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  let sent: string[] | undefined;
  const expectSent = (names: string[]) => {
    if (sent) expect(sent).toEqual(names);
  };
  const resetSent = () => {
    if (sent) sent.length = 0;
  };
  /** Record an update of `userId`'s private chat and take its lease as process "A", with its first reads. */
  const startAtOnce = (userId: number, updateId: number, limit?: { updates: number; windowMs: number }) =>
    store.updates.recordAndAcquire(
      String(userId),
      updateId,
      `{"update_id":${updateId}}`,
      "A",
      store.updateReads.plan(state(userId), limit),
    );
  beforeAll(async () => {
    redis = await connect();
    store = createStore(redis);
    sent = countCommands(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("allows the limit, notifies once, drops the rest, and opens a new window when the old one ends", async () => {
    const limit = { updates: 3, windowMs: 300 };
    const verdicts = [];
    for (let index = 0; index < 8; index += 1)
      verdicts.push((await store.updateReads.begin(state(501), limit)).verdict);
    expect(verdicts).toEqual(["allow", "allow", "allow", "notify", "drop", "drop", "drop", "drop"]);
    const ttl = await redis.pttl(keys.incomingLimit(501));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);

    await expect.poll(() => redis.exists(keys.incomingLimit(501)), { timeout: 5_000 }).toBe(0);
    expect((await store.updateReads.begin(state(501), limit)).verdict).toBe("allow");
  });

  it("counts each user apart, concurrent hits still give exactly one notice, and no limit counts nothing", async () => {
    const limit = { updates: 5, windowMs: 10_000 };
    const verdicts = await Promise.all(
      Array.from({ length: 40 }, async () => (await store.updateReads.begin(state(601), limit)).verdict),
    );
    expect(verdicts.filter((verdict) => verdict === "allow")).toHaveLength(5);
    expect(verdicts.filter((verdict) => verdict === "notify")).toHaveLength(1);
    expect((await store.updateReads.begin(state(602), limit)).verdict).toBe("allow");

    for (let index = 0; index < 10; index += 1)
      expect((await store.updateReads.begin(state(603))).verdict).toBe("allow");
    expect(await redis.exists(keys.incomingLimit(603))).toBe(0);
  });

  it("reads the user, session and conversation at once; the update reads none of them again", async () => {
    await store.users.touch({ id: 701, firstName: "Ada", telegramLanguage: "yo" });
    const sessions = store.sessionStorage<{ screen: string }>(60);
    const conversations = store.conversationStorage<{ steps: number[] }>(60);
    await sessions.write("701", { screen: "menu" });
    await conversations.write("conv:701", { steps: [1, 2, 3] });

    resetSent();
    const { verdict, run } = await store.updateReads.begin(state(701), { updates: 20, windowMs: 10_000 });
    expect(verdict).toBe("allow");
    const seen = await run(async () => ({
      user: await store.users.get(701),
      session: await sessions.read("701"),
      conversation: await conversations.read("conv:701"),
      again: await store.users.get(701),
      maintenance: await store.settings.maintenance(),
    }));
    expectSent(["evalsha", "get"]);
    expect(seen.maintenance).toEqual({ paused: false });
    expect(seen.user).toMatchObject({ id: 701, firstName: "Ada", telegramLanguage: "yo" });
    expect(seen.again).toBe(seen.user);
    expect(seen.session).toEqual({ screen: "menu" });
    expect(seen.conversation).toEqual({ steps: [1, 2, 3] });
  });

  it.each<{
    name: string;
    set(): Promise<unknown>;
    read(): Promise<unknown>;
    value: unknown;
    clear(): Promise<unknown>;
    cleared: unknown;
  }>([
    {
      name: "the maintenance switch",
      set: () => store.settings.setMaintenance({ paused: true, message: "upgrade" }),
      read: () => store.settings.maintenance(),
      value: { paused: true, message: "upgrade" },
      clear: () => store.settings.setMaintenance({ paused: false }),
      cleared: { paused: false },
    },
    {
      name: "the daily limits",
      set: () => store.settings.setDailyLimit("NG", 50_000_00),
      read: () => store.settings.dailyLimits(),
      value: { NG: 50_000_00 },
      clear: () => store.settings.setDailyLimit("NG", undefined),
      cleared: {},
    },
  ])("reads $name ahead, as stored when the update began", async ({ set, read, value, clear, cleared }) => {
    await set();
    resetSent();
    const { run } = await store.updateReads.begin(state(705));
    const seen = await run(async () => [await read(), await read()]);
    expectSent(["evalsha", "get"]);
    expect(seen).toEqual([value, value]);
    await clear();
    resetSent();
    const after = await store.updateReads.begin(state(705));
    expect(await after.run(read)).toEqual(cleared);
    expectSent(["evalsha", "get"]);
  });

  it("knows what is absent without asking again", async () => {
    resetSent();
    const { run } = await store.updateReads.begin(state(702));
    const seen = await run(async () => ({
      user: await store.users.get(702),
      session: await store.sessionStorage(60).read("702"),
      conversation: await store.conversationStorage(60).read("conv:702"),
    }));
    expectSent(["evalsha", "get"]);
    expect(seen).toEqual({ user: undefined, session: undefined, conversation: undefined });
  });

  it("reads its own writes within the update; outside an update every read goes to Redis", async () => {
    await store.users.touch({ id: 703, firstName: "Bola" });
    const { run } = await store.updateReads.begin(state(703));
    await run(async () => {
      expect((await store.users.get(703))?.language).toBeUndefined();
      await store.users.update(703, { language: "ha" });
      expect((await store.users.get(703))?.language).toBe("ha");

      expect((await store.settings.maintenance()).paused).toBe(false);
      await store.settings.setMaintenance({ paused: true, message: "upgrade" });
      resetSent();
      expect(await store.settings.maintenance()).toEqual({ paused: true, message: "upgrade" });
      expectSent([]);
    });

    resetSent();
    await store.users.get(703);
    await store.users.get(703);
    await store.settings.maintenance();
    expectSent(["get", "get", "get"]);
    await store.settings.setMaintenance({ paused: false });
  });

  it("stops serving the update's copies once the update is handled, to work it left running", async () => {
    await store.users.touch({ id: 706, firstName: "Efe" });
    const { run } = await store.updateReads.begin(state(706));
    let later: Promise<string | undefined> | undefined;
    await run(async () => {
      expect((await store.users.get(706))?.language).toBeUndefined();
      later = new Promise((resolve) => {
        setTimeout(async () => resolve((await store.users.get(706))?.language), 50);
      });
    });
    await redis.set(keys.user(706), JSON.stringify({ ...(await store.users.get(706)), language: "sw" }));
    expect(await later).toBe("sw");
  });

  it("makes an update's first reads with the record-and-acquire that starts it: one round trip for both", async () => {
    await store.users.touch({ id: 801, firstName: "Funmi" });
    await store.sessionStorage<{ screen: string }>(60).write("801", { screen: "menu" });
    await store.conversationStorage<{ steps: number[] }>(60).write("conv:801", { steps: [4] });
    await redis.set(keys.process("A"), "1", "PX", 5_000);
    const limit = { updates: 20, windowMs: 10_000 };
    // Another chat first: Redis caches the script (a first EVALSHA falls back to EVAL).
    await startAtOnce(800, 89);
    resetSent();
    const { claim } = await startAtOnce(801, 90, limit);
    expectSent(["evalsha", "get"]);
    expect(claim?.firstReads).toBeDefined();
    expect(await redis.get(keys.incomingLimit(801))).toBe("1");

    resetSent();
    const seen = await store.updates.withFirstReads(claim!, async () => {
      const { verdict, run } = await store.updateReads.begin(state(801), limit);
      return {
        verdict,
        ...(await run(async () => ({
          user: await store.users.get(801),
          session: await store.sessionStorage<{ screen: string }>(60).read("801"),
          conversation: await store.conversationStorage<{ steps: number[] }>(60).read("conv:801"),
          maintenance: await store.settings.maintenance(),
        }))),
      };
    });
    expectSent([]);
    expect(seen).toMatchObject({
      verdict: "allow",
      user: { id: 801, firstName: "Funmi" },
      session: { screen: "menu" },
      conversation: { steps: [4] },
      maintenance: { paused: false },
    });
    // Counted once: the update's own begin did not count it again.
    expect(await redis.get(keys.incomingLimit(801))).toBe("1");

    // Used once: the claim handled again, or a second begin, reads Redis.
    resetSent();
    await store.updates.withFirstReads(claim!, () => store.updateReads.begin(state(801), limit));
    expectSent(["evalsha", "get"]);
    const again = await startAtOnce(804, 91, limit);
    resetSent();
    await store.updates.withFirstReads(again.claim!, async () => {
      await store.updateReads.begin(state(804), limit);
      await store.updateReads.begin(state(804), limit);
    });
    expectSent(["evalsha", "get"]);
    // Other reads than those made (another limit) go to Redis.
    const other = await startAtOnce(805, 92, limit);
    resetSent();
    await store.updates.withFirstReads(other.claim!, () => store.updateReads.begin(state(805)));
    expectSent(["evalsha", "get"]);
  });

  it("makes no first reads for a claim of an earlier update, nor when the chat is held", async () => {
    await redis.set(keys.process("A"), "1", "PX", 5_000);
    await redis.set(keys.process("B"), "1", "PX", 5_000);
    const limit = { updates: 20, windowMs: 10_000 };
    const reads = store.updateReads.plan(state(802), limit);
    // An earlier update of the chat is queued (its process died after recording it): that one is claimed first.
    await store.updates.record("802", 95, '{"update_id":95}');
    const older = await store.updates.recordAndAcquire("802", 96, '{"update_id":96}', "A", reads);
    expect(older.claim).toMatchObject({ updateId: 95 });
    expect(older.claim?.firstReads).toBeUndefined();
    // Held by a live process: recorded behind, nothing read or counted.
    const held = await store.updates.recordAndAcquire("802", 97, '{"update_id":97}', "B", reads);
    expect(held).toEqual({ fresh: true });
    expect(await redis.exists(keys.incomingLimit(802))).toBe(0);
  });

  it("counts a flood's updates started at once like any other: one notice, then drops", async () => {
    await redis.set(keys.process("A"), "1", "PX", 5_000);
    const limit = { updates: 2, windowMs: 10_000 };
    const verdicts: string[] = [];
    for (let updateId = 100; updateId < 104; updateId += 1) {
      const { claim } = await startAtOnce(803, updateId, limit);
      verdicts.push(
        await store.updates.withFirstReads(
          claim!,
          async () => (await store.updateReads.begin(state(803), limit)).verdict,
        ),
      );
      await store.updates.ack(claim!, "A");
    }
    expect(verdicts).toEqual(["allow", "allow", "notify", "drop"]);
  });

  it("keeps each update's reads to itself", async () => {
    await store.users.touch({ id: 704, firstName: "Chidi" });
    await store.users.touch({ id: 705, firstName: "Dayo" });
    const first = await store.updateReads.begin(state(704));
    const second = await store.updateReads.begin(state(705));
    const [a, b] = await Promise.all([
      first.run(async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await store.users.update(704, { language: "ig" });
        return [await store.users.get(704), await store.users.get(705)];
      }),
      second.run(async () => [await store.users.get(704), await store.users.get(705)]),
    ]);
    expect(a.map((user) => user?.firstName)).toEqual(["Chidi", "Dayo"]);
    expect(a[0]?.language).toBe("ig");
    expect(b[0]?.language).toBeUndefined();
    expect(b[1]?.firstName).toBe("Dayo");
  });
});
