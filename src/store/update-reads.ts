import { AsyncLocalStorage } from "node:async_hooks";
import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";
import { parseUserRecord, type UserRecord } from "./user-record.ts";

/** At most `updates` incoming updates per user per window of `windowMs`, across every process of the bot. */
export interface IncomingLimit {
  updates: number;
  windowMs: number;
}

/** allow: handle it. notify: the first update over the limit in this window (say so once). drop: ignore it. */
export type IncomingVerdict = "allow" | "notify" | "drop";

/**
 * The flood-control count of one update and the text its handling reads first, as Lua (the begin script below, and
 * the update inbox's record-and-acquire when it starts the update at once: store/update-scripts.ts). The window is
 * fixed per user and opens at the user's first update: INCR, and its TTL set on the first hit. Exactly one update
 * per window sees count = limit + 1, so exactly one notice is sent however hard the flood. A limit of 0 skips the
 * count (ops are not limited). The user and the session are read whatever the verdict.
 *
 * `keys(i)` and `args(i)` name the i-th key and argument of this part (1-based): KEYS limit window, user, session,
 * then the keys read ahead; ARGV window ms, limit (0: not limited). `prelude` sets `verdict`; `values` lists
 * verdict (0 allow, 1 notify, 2 drop), user, session, …read ahead, for the reply's table constructor (an absent
 * value comes back as nil, false on local mode's stand-in, which cannot build the reply by index).
 */
export function firstReadsLua(
  readAhead: number,
  keys: (index: number) => string,
  args: (index: number) => string,
): { prelude: string; values: string } {
  const reads = Array.from({ length: 2 + readAhead }, (_, index) => `redis.call('GET', ${keys(index + 2)})`);
  return {
    prelude: `
local verdict = 0
local limit = tonumber(${args(2)})
if limit > 0 then
  local count = redis.call('INCR', ${keys(1)})
  if count == 1 or redis.call('PTTL', ${keys(1)}) < 0 then redis.call('PEXPIRE', ${keys(1)}, ${args(1)}) end
  if count == limit + 1 then verdict = 1 elseif count > limit + 1 then verdict = 2 end
end`,
    values: ["verdict", ...reads].join(", "),
  };
}

/** KEYS and ARGV as firstReadsLua numbers them; {verdict, user, session, …read ahead}. */
function beginScript(readAhead: number): LuaScript {
  const { prelude, values } = firstReadsLua(
    readAhead,
    (index) => `KEYS[${index}]`,
    (index) => `ARGV[${index}]`,
  );
  return new LuaScript(`${prelude}
return {${values}}`);
}

const VERDICTS: readonly IncomingVerdict[] = ["allow", "notify", "drop"];

/** The keys of one update's reads (the session and conversation keys are the bot's: its chat key). */
export interface UpdateReadKeys {
  userId: number;
  sessionKey: string;
  conversationKey: string;
}

/**
 * A per-update read cache. While one update is handled, a record read once (by key) is reused for the rest of that
 * update — the conversation plugin replays a flow's earlier steps, and several steps look the same user or setting up
 * — and a write through the repository that owns the key replaces it, so the update reads its own writes. It is
 * seeded by `begin`, which reads what every update needs in one round trip. Outside an update (the events pipeline,
 * scheduled jobs) nothing is cached: every read goes to Redis.
 *
 * Within one update the values are as fresh as at the update's first read. Nothing that must see another process's
 * newest write reads through here: money state (orders, idempotency records, locks) is read by its own scripts; an
 * order's last known text is kept (`peek`) only as the guess a compare-and-set checks.
 */
/** One update's cached values; closed once the update is handled. */
interface ReadScope {
  values: Map<string, unknown>;
  /** Text `begin` read as stored (null: absent), for its owner to parse once. */
  seeded: Map<string, string | Buffer | null>;
  open: boolean;
}

/** An update's first reads: the keys and arguments of firstReadsLua, and the conversation state's key. */
export interface FirstReads {
  /** Limit window, user, session, then the keys read ahead. */
  keys: string[];
  /** Window ms, limit (0: not limited). */
  args: [number, number];
  conversationKey: string;
}

/**
 * What the first reads answered: firstReadsLua's values, and the conversation state (read right after the script, in
 * the same write).
 */
export interface FirstReadsAnswer {
  reads: FirstReads;
  values: [number, ...(string | null | false)[]];
  conversation: Buffer | null;
}

export class UpdateReads {
  private readonly scope = new AsyncLocalStorage<ReadScope>();
  /** First reads already made for the update being handled (by the inbox, with its record-and-acquire). */
  private readonly readAlready = new AsyncLocalStorage<{ answer: FirstReadsAnswer; taken: boolean }>();
  private readonly firstReads: LuaScript;

  constructor(
    private readonly redis: Redis,
    /** Keys every update reads ahead in its first round trip: settings that several steps look up. */
    private readonly readAhead: readonly string[] = [],
  ) {
    this.firstReads = beginScript(readAhead.length);
  }

  /** How many keys every update reads ahead (the scripts that make the first reads are built for this count). */
  get readAheadCount(): number {
    return this.readAhead.length;
  }

  /** The first reads of an update from `read`'s sender and chat, counted against `limit` when given. */
  plan(read: UpdateReadKeys, limit?: IncomingLimit): FirstReads {
    return {
      keys: [keys.incomingLimit(read.userId), keys.user(read.userId), read.sessionKey, ...this.readAhead],
      args: [limit?.windowMs ?? 0, limit?.updates ?? 0],
      conversationKey: read.conversationKey,
    };
  }

  /**
   * Handle an update whose first reads were made already (`answer`: the update inbox makes them in the round trip
   * that records the update and takes its chat's lease, when it starts the update at once): the update's `begin`
   * uses them instead of Redis when it asks for the same reads, once.
   */
  withAnswer<T>(answer: FirstReadsAnswer | undefined, handle: () => Promise<T>): Promise<T> {
    return answer ? this.readAlready.run({ answer, taken: false }, handle) : handle();
  }

  /**
   * Count the update against its sender's limit (when `limit` is given) and read the user, session and conversation;
   * `run` then handles the update with those cached. One round trip: the script and the read of the (binary,
   * deflated) conversation state leave in one write, as Lua would hand the bytes back as text on local mode's
   * stand-in.
   * None when the update inbox made these reads already (`withAnswer`).
   */
  async begin(
    read: UpdateReadKeys,
    limit?: IncomingLimit,
  ): Promise<{ verdict: IncomingVerdict; run<T>(handle: () => Promise<T>): Promise<T> }> {
    const reads = this.plan(read, limit);
    const already = this.readAlready.getStore();
    let answer: FirstReadsAnswer;
    if (already && !already.taken && sameReads(already.answer.reads, reads)) {
      already.taken = true;
      answer = already.answer;
    } else {
      const [values, conversation] = await this.firstReads.runThenGetBuffer(
        this.redis,
        reads.keys,
        reads.args,
        reads.conversationKey,
      );
      answer = { reads, values: values as FirstReadsAnswer["values"], conversation };
    }
    const [verdict, user, session] = answer.values;
    const values = new Map<string, unknown>([
      [keys.user(read.userId), parseUserRecord(user || null) satisfies UserRecord | undefined],
    ]);
    const seeded = new Map<string, string | Buffer | null>([
      [read.sessionKey, session || null],
      [read.conversationKey, answer.conversation],
    ]);
    this.readAhead.forEach((key, index) => {
      seeded.set(key, (answer.values[3 + index] as string | null | false) || null);
    });
    return {
      verdict: VERDICTS[verdict] ?? "drop",
      run: async (handle) => {
        const scope: ReadScope = { values, seeded, open: true };
        try {
          return await this.scope.run(scope, handle);
        } finally {
          // Work the update started and left running (a timer, a queued job on local mode's in-process queue)
          // keeps this async context: from here on it reads Redis, not the update's copies.
          scope.open = false;
        }
      },
    };
  }

  /** This update's values, while it is being handled. */
  private current(): Map<string, unknown> | undefined {
    return this.open()?.values;
  }

  private open(): ReadScope | undefined {
    const scope = this.scope.getStore();
    return scope?.open ? scope : undefined;
  }

  /**
   * The value under `key` as this update last read or wrote it, else `load()` (remembered for the rest of the update).
   * Values are kept as `load` returns them: callers must not mutate what they get.
   */
  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const cached = this.current();
    if (!cached) return load();
    if (cached.has(key)) return cached.get(key) as T;
    const value = await load();
    cached.set(key, value);
    return value;
  }

  /**
   * What `begin` read under `key` (the session, the conversation state, a key read ahead), as stored (null:
   * absent), taken once: the plugins keep the value themselves and write it back, a setting is parsed once and
   * kept by `read`. undefined: not read by `begin` (read Redis).
   */
  takeSeeded<T extends string | Buffer>(key: string): T | null | undefined {
    const seeded = this.open()?.seeded;
    if (!seeded?.has(key)) return undefined;
    const value = seeded.get(key) as T | null;
    seeded.delete(key);
    return value;
  }

  /** What this update last read or wrote under `key`, if it is being handled and did; nothing is loaded. */
  peek<T>(key: string): T | undefined {
    return this.current()?.get(key) as T | undefined;
  }

  /** After a write of `key`: this update reads `value` from now on (`undefined`: reads Redis again). */
  wrote(key: string, value?: unknown): void {
    const cached = this.current();
    if (!cached) return;
    if (value === undefined) cached.delete(key);
    else cached.set(key, value);
  }
}

function sameReads(a: FirstReads, b: FirstReads): boolean {
  return (
    a.conversationKey === b.conversationKey &&
    a.args[0] === b.args[0] &&
    a.args[1] === b.args[1] &&
    a.keys.length === b.keys.length &&
    a.keys.every((key, index) => key === b.keys[index])
  );
}
