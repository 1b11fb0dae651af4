import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { parseJson, readJson } from "./json.ts";
import { keys } from "./keys.ts";
import type { UpdateReads } from "./update-reads.ts";

const userRecordSchema = z.object({
  id: z.number().int(),
  firstName: z.string().optional(),
  username: z.string().optional(),
  /** The language the user picked with /language; absent = follow Telegram/account defaults. */
  language: z.string().optional(),
  /**
   * The corridor whose clock the user reads times in (/language): NG = WAT, KE = EAT, ZA = SAST, GH = GMT. Absent =
   * the clock of their most recent order's corridor, else their language's country (see bot/account/clock.ts).
   */
  clock: z.enum(COUNTRIES).optional(),
  /** Last language_code Telegram reported, so notifications outside an update can use it. */
  telegramLanguage: z.string().optional(),
  blocked: z.boolean().default(false),
  /** The user blocked the bot (Telegram 403): nothing more is sent until they return. */
  unreachable: z.boolean().default(false),
  merchant: z.boolean().default(false),
  createdAt: z.string(),
  lastSeenAt: z.string(),
});
export type UserRecord = z.infer<typeof userRecordSchema>;

/** A user record from its stored text (read together with other keys), or undefined. */
export function parseUserRecord(raw: string | null): UserRecord | undefined {
  return parseJson(raw, userRecordSchema);
}

export class UserRepository {
  constructor(
    private readonly redis: Redis,
    /** Within one update a user is read once (store/update-reads.ts). */
    private readonly reads: UpdateReads,
  ) {}

  async get(userId: number): Promise<UserRecord | undefined> {
    const key = keys.user(userId);
    return this.reads.read(key, () => readJson(this.redis, key, userRecordSchema));
  }

  /** Create or refresh the record from an incoming update; returns the stored record. */
  async touch(input: {
    id: number;
    firstName?: string;
    username?: string;
    telegramLanguage?: string;
  }): Promise<UserRecord> {
    const now = new Date().toISOString();
    const existing = await this.get(input.id);
    const record: UserRecord = {
      ...(existing ?? { id: input.id, blocked: false, unreachable: false, merchant: false, createdAt: now }),
      firstName: input.firstName ?? existing?.firstName,
      username: input.username ?? existing?.username,
      telegramLanguage: input.telegramLanguage ?? existing?.telegramLanguage,
      unreachable: false,
      lastSeenAt: now,
    };
    const pipeline = this.redis.multi().set(keys.user(input.id), JSON.stringify(record));
    pipeline.zadd(keys.usersAll(), Date.parse(record.createdAt), String(input.id));
    if (record.username)
      pipeline.hset(keys.usersByUsername(), record.username.toLowerCase(), String(input.id));
    await pipeline.exec();
    this.reads.wrote(keys.user(input.id), record);
    return record;
  }

  async update(userId: number, patch: Partial<Omit<UserRecord, "id">>): Promise<UserRecord | undefined> {
    const existing = await this.get(userId);
    if (!existing) return undefined;
    const record = { ...existing, ...patch };
    await this.redis.set(keys.user(userId), JSON.stringify(record));
    this.reads.wrote(keys.user(userId), record);
    return record;
  }

  async findByUsername(username: string): Promise<UserRecord | undefined> {
    const id = await this.redis.hget(keys.usersByUsername(), username.replace(/^@/, "").toLowerCase());
    return id ? this.get(Number(id)) : undefined;
  }

  async count(): Promise<number> {
    return this.redis.zcard(keys.usersAll());
  }

  /** All user ids, oldest first, in pages (broadcasts, stats). */
  async *ids(pageSize = 500): AsyncGenerator<number[]> {
    let start = 0;
    for (;;) {
      const page = await this.redis.zrange(keys.usersAll(), start, start + pageSize - 1);
      if (page.length === 0) return;
      yield page.map(Number);
      start += page.length;
    }
  }
}
