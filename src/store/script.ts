import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A Lua script run with EVALSHA (the script text goes over the wire and through Redis's SHA1 once, not on every
 * call), falling back to EVAL when the server does not have it cached (after a restart or SCRIPT FLUSH). Works on
 * any ioredis client, auto-pipelined or not, with or without a keyPrefix.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  async run(
    redis: Redis,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[] = [],
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

const DELETE_IF_EQUALS = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/** Delete `key` only while it still holds `token` (releasing a lock we own, never someone else's). */
export async function deleteIfEquals(redis: Redis, key: string, token: string): Promise<boolean> {
  return (await DELETE_IF_EQUALS.run(redis, [key], [token])) === 1;
}
