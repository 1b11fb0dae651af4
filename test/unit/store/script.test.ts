import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LuaScript } from "#src/store/script.js";
import { BOTH_STORES } from "../../support/store-fixtures.ts";

/** A script that writes (so a read after it must see its write) and answers what it found. */
const BUMP = new LuaScript(`
local was = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1])
return {was or 'none', redis.call('INCR', KEYS[1])}
`);

describe.each(BOTH_STORES)("LuaScript on %s", (name, connect) => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await connect();
    await redis.flushdb();
  });
  afterAll(() => redis.quit());

  it("runs the script, then reads a key's bytes after it, the server having the script cached or not", async () => {
    // A fresh stand-in has no script cached; on Redis, forget them all (as after a restart).
    if (name === "redis-server") await redis.script("FLUSH");
    const bytes = Buffer.from([0x00, 0xff, 0x80, 0x7b]);
    await redis.set("bin", bytes);

    const [first, firstRead] = await BUMP.runThenGetBuffer(redis, ["count", "bin"], [bytes], "bin");
    expect(first).toEqual(["none", 1]);
    expect(firstRead).toEqual(bytes);

    // Cached now: the script's write is what the read sees.
    const changed = Buffer.from([0x01, 0x02]);
    const [second, secondRead] = await BUMP.runThenGetBuffer(redis, ["count", "bin"], [changed], "bin");
    expect(second).toEqual(["1", 2]);
    expect(secondRead).toEqual(changed);

    expect(await BUMP.runThenGetBuffer(redis, ["count", "bin"], [changed], "missing")).toEqual([
      ["2", 3],
      null,
    ]);
  });

  it("fails with the script's own error", async () => {
    const failing = new LuaScript(`error('refused by the script')`);
    await expect(failing.run(redis, [])).rejects.toThrow(/refused by the script/);
    await expect(failing.runThenGetBuffer(redis, [], [], "any")).rejects.toThrow(/refused by the script/);
  });
});
