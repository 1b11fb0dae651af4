import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMemoryRedis } from "#src/standins/local/memory-redis.js";
import { keys, MAX_RATE_ALERTS, RateAlertLimitError, RateAlertRepository } from "#src/store/index.js";
import { freshRedis } from "../../support/redis.ts";

// The add and claim scripts run on real Redis and on local mode's in-memory stand-in (ioredis-mock's Lua).
describe.each([
  ["redis-server", () => freshRedis()],
  ["in-memory stand-in", () => createMemoryRedis()],
] as const)("rate alerts on %s", (_name, connect) => {
  let redis: Redis;
  let alerts: RateAlertRepository;

  beforeAll(async () => {
    redis = await connect();
    alerts = new RateAlertRepository(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("returns only alerts whose threshold is strictly below the value, per corridor", async () => {
    const below = await alerts.add({ userId: 1, country: "NG", threshold: 14_999_999 });
    await alerts.add({ userId: 1, country: "NG", threshold: 15_000_000 });
    await alerts.add({ userId: 2, country: "KE", threshold: 100 });
    expect(await alerts.crossed("NG", 15_000_000)).toEqual([below.id]);
    expect(await alerts.armed("GH")).toBe(false);
    expect(await alerts.armed("KE")).toBe(true);
  });

  it("hands a crossed alert to exactly one of many concurrent claims and forgets it everywhere", async () => {
    const alert = await alerts.add({ userId: 7, country: "ZA", threshold: 100_000 });
    const claims = await Promise.all(Array.from({ length: 20 }, () => alerts.claim(alert.id)));
    expect(claims.filter((claimed) => claimed !== undefined)).toEqual([alert]);
    expect(await alerts.list(7)).toEqual([]);
    expect(await alerts.crossed("ZA", 10_000_000)).toEqual([]);
    expect(await redis.exists(keys.rateAlert(alert.id), keys.userRateAlerts(7))).toBe(0);
  });

  it("removes only the owner's alert, and keeps at most MAX_RATE_ALERTS per user", async () => {
    const alert = await alerts.add({ userId: 8, country: "GH", threshold: 5_000 });
    expect(await alerts.remove(9, alert.id)).toBe(false);
    expect(await alerts.remove(8, alert.id)).toBe(true);
    expect(await alerts.remove(8, alert.id)).toBe(false);
    for (let n = 0; n < MAX_RATE_ALERTS; n += 1)
      await alerts.add({ userId: 8, country: "GH", threshold: 5_000 + n });
    await expect(alerts.add({ userId: 8, country: "NG", threshold: 1 })).rejects.toBeInstanceOf(
      RateAlertLimitError,
    );
    expect(await alerts.list(8)).toHaveLength(MAX_RATE_ALERTS);
  });

  it("lets one process claim a tick until it lapses", async () => {
    expect(await alerts.claimTick(60_000)).toBe(true);
    expect(await alerts.claimTick(60_000)).toBe(false);
  });
});
