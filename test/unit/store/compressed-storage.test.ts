import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompressedRedisStorage } from "#src/store/compressed-storage.js";
import { freshRedis } from "../../support/redis.ts";

describe("CompressedRedisStorage", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await freshRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("round-trips values, stores them much smaller than their JSON, and expires them", async () => {
    const storage = new CompressedRedisStorage<unknown>(redis, 60);
    const value = {
      version: [0, 2],
      state: Array.from({ length: 40 }, (_, index) => ({
        update_id: index,
        message: { chat: { id: 5001, type: "private" }, text: `step ${index}`, from: { first_name: "Ada" } },
      })),
    };
    await storage.write("conv:5001", value);
    expect(await storage.read("conv:5001")).toEqual(value);
    const stored = await redis.getBuffer("conv:5001");
    expect(stored!.length * 3).toBeLessThan(JSON.stringify(value).length);
    const ttl = await redis.ttl("conv:5001");
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    await storage.delete("conv:5001");
    expect(await storage.read("conv:5001")).toBeUndefined();
  });
});
