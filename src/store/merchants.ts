import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import type { UserRecord } from "./user-record.ts";
import type { UserRepository } from "./users.ts";

/**
 * Merchants are users approved by ops. The flag lives on the user record (what every handler already reads);
 * a set of ids makes /merchants a cheap listing.
 */
export class MerchantRepository {
  constructor(
    private readonly redis: Redis,
    private readonly users: UserRepository,
  ) {}

  /** Undefined when the user never talked to the bot (they must press Start first: we could not write to them). */
  async approve(userId: number): Promise<UserRecord | undefined> {
    const user = await this.users.update(userId, { merchant: true });
    if (user) await this.redis.sadd(keys.merchantsAll(), String(userId));
    return user;
  }

  async revoke(userId: number): Promise<UserRecord | undefined> {
    const user = await this.users.update(userId, { merchant: false });
    await this.redis.srem(keys.merchantsAll(), String(userId));
    return user;
  }

  async isMerchant(userId: number): Promise<boolean> {
    return (await this.users.get(userId))?.merchant === true;
  }

  /** Approved merchants, by id. */
  async list(): Promise<UserRecord[]> {
    const ids = (await this.redis.smembers(keys.merchantsAll())).map(Number).sort((a, b) => a - b);
    const users = await Promise.all(ids.map((id) => this.users.get(id)));
    return users.filter((user): user is UserRecord => user?.merchant === true);
  }
}
