import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, HeldWrites, keys, type Store } from "#src/store/index.js";
import { BOTH_STORES } from "../../support/store-fixtures.ts";

describe("HeldWrites", () => {
  it("collects the last write per key of one update; outside an update nothing is held", async () => {
    const held = new HeldWrites();
    expect(held.hold({ key: "a", value: "x", ttlSeconds: 0 })).toBe(false);
    const writes = await held.collect(async () => {
      held.hold({ key: "a", value: "1", ttlSeconds: 10 });
      held.hold({ key: "b", value: null, ttlSeconds: 0 });
      held.hold({ key: "a", value: "2", ttlSeconds: 10 });
      expect(held.pending("a")?.value).toBe("2");
      expect(held.pending("c")).toBeUndefined();
    });
    expect(writes).toEqual([
      { key: "a", value: "2", ttlSeconds: 10 },
      { key: "b", value: null, ttlSeconds: 0 },
    ]);
  });

  it("keeps concurrent updates apart, gives nothing to commit when the handler throws, and closes with the update", async () => {
    const held = new HeldWrites();
    let leftRunning: (() => boolean) | undefined;
    const [one, two] = await Promise.all([
      held.collect(async () => {
        held.hold({ key: "one", value: "1", ttlSeconds: 0 });
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(held.pending("two")).toBeUndefined();
        leftRunning = () => held.hold({ key: "late", value: "x", ttlSeconds: 0 });
      }),
      held.collect(async () => {
        held.hold({ key: "two", value: "2", ttlSeconds: 0 });
      }),
    ]);
    expect(one.map((write) => write.key)).toEqual(["one"]);
    expect(two.map((write) => write.key)).toEqual(["two"]);
    // Work the update left running (it keeps the update's async context) writes at once.
    expect(leftRunning?.()).toBe(false);
    await expect(
      held.collect(async () => {
        held.hold({ key: "a", value: "1", ttlSeconds: 0 });
        throw new Error("handler failed");
      }),
    ).rejects.toThrow("handler failed");
  });
});

// The bot's session and conversation storages as createStore builds them, on both stores.
describe.each(BOTH_STORES)("chat state held for the acknowledgement on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  beforeAll(async () => {
    redis = await connect();
  });
  beforeEach(async () => {
    await redis.flushdb();
    store = createStore(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("session and conversation writes wait for the acknowledgement; the update reads its own writes", async () => {
    const sessions = store.sessionStorage<{ step: number }>(600);
    const conversations = store.conversationStorage<{ log: string[] }>(3_600);
    await sessions.write("s:9", { step: 1 });
    await conversations.write("conv:9", { log: ["a"] });
    await redis.set(keys.process("A"), "1", "PX", 5_000);
    await store.updates.record("9", 70, "{}");
    const claim = await store.updates.acquire("9", "A");

    const writes = await store.updates.holdingStateWrites(async () => {
      expect(await sessions.read("s:9")).toEqual({ step: 1 });
      await sessions.write("s:9", { step: 2 });
      await conversations.write("conv:9", { log: ["a", "b"] });
      expect(await sessions.read("s:9")).toEqual({ step: 2 });
      expect(await conversations.read("conv:9")).toEqual({ log: ["a", "b"] });
    });
    // Before the acknowledgement Redis still holds the state the update started from.
    expect(await sessions.read("s:9")).toEqual({ step: 1 });
    expect(await conversations.read("conv:9")).toEqual({ log: ["a"] });

    await store.updates.ack(claim!, "A", writes);
    expect(await sessions.read("s:9")).toEqual({ step: 2 });
    expect(await conversations.read("conv:9")).toEqual({ log: ["a", "b"] });
    expect(await redis.ttl("s:9")).toBeGreaterThan(590);
    expect(await redis.ttl("conv:9")).toBeGreaterThan(3_590);

    // A conversation that ends deletes its state, with the acknowledgement too.
    await store.updates.record("9", 71, "{}");
    const next = await store.updates.acquire("9", "A");
    const ended = await store.updates.holdingStateWrites(async () => {
      await conversations.delete("conv:9");
      expect(await conversations.read("conv:9")).toBeUndefined();
    });
    expect(await redis.exists("conv:9")).toBe(1);
    await store.updates.ack(next!, "A", ended);
    expect(await redis.exists("conv:9")).toBe(0);
  });
});
