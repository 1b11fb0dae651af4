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
      if (!isNoScript(error)) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }

  /**
   * The script, then a binary read of `key`, in one write to the socket (a pipeline: one round trip, and one system
   * call where two commands sent side by side make two). The read comes after the script, so it sees what the script
   * saw or did; when the server lacked the script, both are sent again in that order.
   */
  async runThenGetBuffer(
    redis: Redis,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
    key: string,
  ): Promise<[unknown, Buffer | null]> {
    const again = () =>
      Promise.all([redis.eval(this.source, keys.length, ...keys, ...args), redis.getBuffer(key)]);
    let replies: [[Error | null, unknown], [Error | null, Buffer | null]];
    try {
      replies = (await redis
        .pipeline()
        .evalsha(this.sha, keys.length, ...keys, ...args)
        .getBuffer(key)
        .exec()) as typeof replies;
    } catch (error) {
      // Local mode's stand-in fails the whole pipeline where Redis answers each command.
      if (!isNoScript(error)) throw error;
      return again();
    }
    const [scripted, read] = replies;
    if (scripted[0]) {
      if (!isNoScript(scripted[0])) throw scripted[0];
      return again();
    }
    if (read[0]) throw read[0];
    return [scripted[1], read[1]];
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

const DELETE_IF_EQUALS = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/** Delete `key` only while it still holds `token` (releasing a lock we own, never someone else's). */
export async function deleteIfEquals(redis: Redis, key: string, token: string): Promise<boolean> {
  return (await DELETE_IF_EQUALS.run(redis, [key], [token])) === 1;
}
