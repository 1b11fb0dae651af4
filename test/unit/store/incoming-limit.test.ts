import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IncomingLimiter, keys } from "#src/store/index.js";
import { freshRedis } from "../../support/redis.ts";

describe("IncomingLimiter (real Redis)", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await freshRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("allows the limit, notifies once, drops the rest, and opens a new window when the old one ends", async () => {
    const limiter = new IncomingLimiter(redis, { updates: 3, windowMs: 300 });
    const verdicts = [];
    for (let index = 0; index < 8; index += 1) verdicts.push(await limiter.hit(501));
    expect(verdicts).toEqual(["allow", "allow", "allow", "notify", "drop", "drop", "drop", "drop"]);
    const ttl = await redis.pttl(keys.incomingLimit(501));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);

    await expect.poll(() => redis.exists(keys.incomingLimit(501)), { timeout: 5_000 }).toBe(0);
    expect(await limiter.hit(501)).toBe("allow");
  });

  it("counts each user apart, and concurrent hits still give exactly one notice", async () => {
    const limiter = new IncomingLimiter(redis, { updates: 5, windowMs: 10_000 });
    const verdicts = await Promise.all(Array.from({ length: 40 }, () => limiter.hit(601)));
    expect(verdicts.filter((verdict) => verdict === "allow")).toHaveLength(5);
    expect(verdicts.filter((verdict) => verdict === "notify")).toHaveLength(1);
    expect(await limiter.hit(602)).toBe("allow");
  });
});
