import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { parseJson } from "./json.ts";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";

/**
 * A repeat send: a saved recipient, an amount as the user gave it (local money the recipient gets, or sats the user
 * pays; integer minor units), a cadence counted from an anchor day in the user's clock, and the number of the next
 * occurrence. Active repeats sit in `repeats:due` scored by that occurrence's due time (the API's clock, ms); a
 * paused one is out of it. The schedule's rules live with the feature (src/bot/account/repeats/schedule.ts): the
 * store keeps the record and moves it only by compare-and-set, so two processes never act on one state twice.
 */
const repeatSchema = z.object({
  id: z.string(),
  userId: z.number().int(),
  chatId: z.number().int(),
  recipientId: z.string(),
  corridor: z.enum(COUNTRIES),
  /** The recipient's masked label when the repeat was set up (shown on cards and the list). */
  label: z.string(),
  amount: z.object({ amount: z.number().int().positive(), currency: z.string() }),
  cadence: z.enum(["week", "month"]),
  /** "YYYY-MM-DD" in `clock`'s zone: the day the repeat counts from. */
  anchor: z.string(),
  /** Whose clock the schedule runs on: the corridor zone the user reads times in. */
  clock: z.enum(COUNTRIES),
  /** The next occurrence to send (1 = one period after the anchor). */
  next: z.number().int().positive(),
  paused: z.boolean(),
  createdAt: z.string(),
  /** The last occurrence a card was sent for, and that card. */
  lastCard: z.object({ n: z.number().int(), messageId: z.number().int().optional() }).optional(),
  /** How the user last paid it (a Kenyan, South African or Ghanaian one may be paid in naira); Lightning unset. */
  payWith: z.enum(["lightning", "naira"]).optional(),
});
export type Repeat = z.infer<typeof repeatSchema>;

const MAX_REPEATS = 10;

/** A record as read, with the exact text it was read from (the compare-and-set's expected value). */
export interface RepeatSnapshot {
  repeat: Repeat;
  raw: string;
}

/** Replace the record only while it still reads `expected`; then schedule it (a due time) or take it off the schedule. */
const COMPARE_AND_SET = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[4]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4]) end
return 1`);

export class RepeatLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} repeat sends`);
    this.name = "RepeatLimitError";
  }
}

export class RepeatRepository {
  constructor(private readonly redis: Redis) {}

  async read(id: string): Promise<RepeatSnapshot | undefined> {
    const raw = await this.redis.get(keys.repeat(id));
    const repeat = parseJson(raw, repeatSchema);
    return raw && repeat ? { repeat, raw } : undefined;
  }

  async get(id: string): Promise<Repeat | undefined> {
    return (await this.read(id))?.repeat;
  }

  /** The user's repeats, oldest first. */
  async list(userId: number): Promise<Repeat[]> {
    const ids = await this.redis.smembers(keys.userRepeats(userId));
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => keys.repeat(id)));
    return raws
      .map((raw) => parseJson(raw, repeatSchema))
      .filter((repeat): repeat is Repeat => !!repeat && repeat.userId === userId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /**
   * A new repeat, scheduled at `dueAt`; the user's identical one (same recipient, cadence and amount) when it
   * exists already, so a second press sets nothing up twice.
   */
  async create(
    input: Omit<Repeat, "id" | "createdAt" | "next" | "paused">,
    dueAt: number,
    nowIso: string,
  ): Promise<{ repeat: Repeat; created: boolean }> {
    const existing = (await this.list(input.userId)).find(
      (repeat) =>
        repeat.recipientId === input.recipientId &&
        repeat.cadence === input.cadence &&
        repeat.amount.amount === input.amount.amount &&
        repeat.amount.currency === input.amount.currency,
    );
    if (existing) return { repeat: existing, created: false };
    if ((await this.redis.scard(keys.userRepeats(input.userId))) >= MAX_REPEATS)
      throw new RepeatLimitError(MAX_REPEATS);
    const repeat: Repeat = {
      ...input,
      id: randomBytes(4).toString("hex"),
      next: 1,
      paused: false,
      createdAt: nowIso,
    };
    await this.redis
      .multi()
      .set(keys.repeat(repeat.id), JSON.stringify(repeat))
      .sadd(keys.userRepeats(repeat.userId), repeat.id)
      .zadd(keys.repeatsDue(), dueAt, repeat.id)
      .exec();
    return { repeat, created: true };
  }

  /**
   * Write `next` in place of the snapshot, atomically: false when anything changed the record since it was read
   * (another process's due job, the user's own press). `dueAt` schedules it; undefined takes it off the schedule.
   */
  async replace(snapshot: RepeatSnapshot, next: Repeat, dueAt: number | undefined): Promise<boolean> {
    const result = await COMPARE_AND_SET.run(
      this.redis,
      [keys.repeat(next.id), keys.repeatsDue()],
      [snapshot.raw, JSON.stringify(next), dueAt === undefined ? "" : String(dueAt), next.id],
    );
    return result === 1;
  }

  /**
   * Read, change and compare-and-set, a few times over if someone else wrote in between. `change` returns the new
   * record and its due time, or undefined to leave it as it is. Returns the record as written (or as found).
   */
  async update(
    id: string,
    change: (repeat: Repeat) => { repeat: Repeat; dueAt: number | undefined } | undefined,
  ): Promise<Repeat | undefined> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const snapshot = await this.read(id);
      if (!snapshot) return undefined;
      const changed = change(snapshot.repeat);
      if (!changed) return snapshot.repeat;
      if (await this.replace(snapshot, changed.repeat, changed.dueAt)) return changed.repeat;
    }
    throw new Error(`repeat ${id} kept changing; not updated`);
  }

  /** Remember how the user paid this repeat, its schedule untouched (the due job's own write wins a race). */
  async rememberPayMethod(id: string, userId: number, payWith: "lightning" | "naira"): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const snapshot = await this.read(id);
      if (!snapshot || snapshot.repeat.userId !== userId || snapshot.repeat.payWith === payWith) return;
      const score = await this.redis.zscore(keys.repeatsDue(), id);
      const dueAt = score === null ? undefined : Number(score);
      if (await this.replace(snapshot, { ...snapshot.repeat, payWith }, dueAt)) return;
    }
  }

  async remove(repeat: Pick<Repeat, "id" | "userId">): Promise<boolean> {
    const [deleted] =
      (await this.redis
        .multi()
        .del(keys.repeat(repeat.id))
        .srem(keys.userRepeats(repeat.userId), repeat.id)
        .zrem(keys.repeatsDue(), repeat.id)
        .exec()) ?? [];
    return deleted?.[1] === 1;
  }

  /** Ids of active repeats due at `now` (API clock), soonest first. */
  due(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(keys.repeatsDue(), "-inf", now, "LIMIT", 0, limit);
  }

  /** Drop a due entry whose record is gone. */
  async unschedule(id: string): Promise<void> {
    await this.redis.zrem(keys.repeatsDue(), id);
  }
}
