import { describe, expect, it } from "vitest";
import { freshRedis } from "../support/redis.ts";

describe("test harness redis", () => {
  it("is a real, private redis-server with an empty database for this file", async () => {
    const redis = await freshRedis();
    try {
      expect(await redis.dbsize()).toBe(0);
      await redis.set("probe", "1");
      expect(await redis.get("probe")).toBe("1");
      const info = await redis.info("server");
      expect(info).toMatch(/redis_version:/);
    } finally {
      await redis.quit();
    }
  });
});
