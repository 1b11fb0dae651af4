import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { parseJson } from "./json.ts";
import { keys } from "./keys.ts";

/**
 * A saved beneficiary. `details` is the API beneficiary object exactly as it was quoted (NGN names as enquired);
 * `token` is a short id that is safe in deep links and callback data (never the data itself).
 */
const recipientSchema = z.object({
  id: z.string(),
  token: z.string(),
  userId: z.number().int(),
  corridor: z.enum(COUNTRIES),
  method: z.string(),
  label: z.string(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  lastUsedAt: z.string().optional(),
});
export type Recipient = z.infer<typeof recipientSchema>;

const MAX_RECIPIENTS = 50;

export class RecipientRepository {
  constructor(private readonly redis: Redis) {}

  async list(userId: number): Promise<Recipient[]> {
    const raws = await this.redis.hvals(keys.recipients(userId));
    return raws
      .map((raw) => parseJson(raw, recipientSchema))
      .filter((recipient): recipient is Recipient => !!recipient)
      .sort((a, b) => (b.lastUsedAt ?? b.createdAt).localeCompare(a.lastUsedAt ?? a.createdAt));
  }

  async get(userId: number, id: string): Promise<Recipient | undefined> {
    return parseJson(await this.redis.hget(keys.recipients(userId), id), recipientSchema);
  }

  async getByToken(token: string): Promise<Recipient | undefined> {
    const ref = await this.redis.get(keys.recipientByToken(token));
    if (!ref) return undefined;
    const [userId, id] = ref.split(":");
    return userId && id ? this.get(Number(userId), id) : undefined;
  }

  /** Save (or return the existing identical) recipient. */
  async save(input: Omit<Recipient, "id" | "token" | "createdAt">): Promise<Recipient> {
    const existing = (await this.list(input.userId)).find(
      (recipient) => JSON.stringify(recipient.details) === JSON.stringify(input.details),
    );
    if (existing) return existing;
    const count = await this.redis.hlen(keys.recipients(input.userId));
    if (count >= MAX_RECIPIENTS) throw new RecipientLimitError(MAX_RECIPIENTS);
    const id = randomBytes(4).toString("hex");
    const token = randomBytes(6).toString("base64url");
    const recipient: Recipient = { ...input, id, token, createdAt: new Date().toISOString() };
    await this.redis
      .multi()
      .hset(keys.recipients(input.userId), id, JSON.stringify(recipient))
      .set(keys.recipientByToken(token), `${input.userId}:${id}`)
      .exec();
    return recipient;
  }

  async touch(userId: number, id: string): Promise<void> {
    const recipient = await this.get(userId, id);
    if (!recipient) return;
    recipient.lastUsedAt = new Date().toISOString();
    await this.redis.hset(keys.recipients(userId), id, JSON.stringify(recipient));
  }

  async remove(userId: number, id: string): Promise<boolean> {
    const recipient = await this.get(userId, id);
    if (!recipient) return false;
    await this.redis
      .multi()
      .hdel(keys.recipients(userId), id)
      .del(keys.recipientByToken(recipient.token))
      .exec();
    return true;
  }
}

export class RecipientLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} saved recipients`);
    this.name = "RecipientLimitError";
  }
}
