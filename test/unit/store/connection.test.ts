import { describe, expect, it } from "vitest";
import { loadConfig } from "#src/config.js";
import { parseRedisUrl } from "#src/store/connection.js";

describe("REDIS_URL", () => {
  it("passes a single server's URL to ioredis as it is", () => {
    expect(parseRedisUrl("redis://:secret@10.0.0.5:6380/2")).toEqual({
      kind: "server",
      url: "redis://:secret@10.0.0.5:6380/2",
    });
    expect(parseRedisUrl("rediss://cache.example:6379")).toMatchObject({ kind: "server" });
  });

  it("reads a Sentinel set: every Sentinel, the master name, the database and both passwords", () => {
    const target = parseRedisUrl(
      "redis+sentinel://app:p%40ss@10.0.0.1:26379,10.0.0.2,[::1]:26380/payout-master/3?sentinelPassword=s3",
    );
    expect(target).toEqual({
      kind: "sentinel",
      options: {
        sentinels: [
          { host: "10.0.0.1", port: 26379 },
          { host: "10.0.0.2", port: 26379 },
          { host: "::1", port: 26380 },
        ],
        name: "payout-master",
        db: 3,
        username: "app",
        password: "p@ss",
        sentinelPassword: "s3",
      },
    });
    expect(parseRedisUrl("redis+sentinel://s1:26379/m?tls=true")).toMatchObject({
      options: { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true },
    });
  });

  it.each([
    ["http://cache:6379", /must start with/],
    ["redis+sentinel:///mymaster", /names no Sentinel/],
    ["redis+sentinel://s1:26379", /master name/],
    ["redis+sentinel://s1:26379/m/x", /database/],
    ["redis+sentinel://s1:26379/m/0/extra", /master name/],
    ["redis+sentinel://s1:port/m", /host\[:port\]/],
  ])("refuses %s", (url, reason) => {
    expect(() => parseRedisUrl(url)).toThrow(reason);
  });

  it("is checked by the config, without echoing the URL (it may hold a password)", () => {
    const env = { NODE_ENV: "test", REDIS_URL: "redis+sentinel://:hunter2@s1:26379" };
    expect(() => loadConfig(env)).toThrow(/REDIS_URL.*master name/s);
    try {
      loadConfig(env);
    } catch (error) {
      expect(String(error)).not.toContain("hunter2");
    }
    expect(loadConfig({ NODE_ENV: "test", REDIS_URL: "redis+sentinel://s1,s2,s3/m" }).redisUrl).toBe(
      "redis+sentinel://s1,s2,s3/m",
    );
  });
});
