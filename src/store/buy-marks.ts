import type { Redis } from "ioredis";
import { claimKey } from "./claims.ts";
import { keys } from "./keys.ts";

const CONFIRM_TTL_SECONDS = 7 * 24 * 3600;
const SIMULATED_TTL_SECONDS = 7 * 24 * 3600;
const REQUOTE_TTL_SECONDS = 24 * 3600;

/** Markers of buy orders' buttons: which Confirm press went first, a simulated pay-in done, a "New quote" taken. */
export class BuyMarkRepository {
  constructor(private readonly redis: Redis) {}

  /**
   * Take the order's Confirm for this press (the pressing update's id): the same press handled again (its process
   * died mid-way) still gets true, another press (a double tap, an old card) false.
   */
  async claimConfirm(orderId: string, pressedBy: string): Promise<boolean> {
    const key = keys.buyConfirm(orderId);
    if (await claimKey(this.redis, key, pressedBy, CONFIRM_TTL_SECONDS * 1000)) return true;
    return (await this.redis.get(key)) === pressedBy;
  }

  async confirmTaken(orderId: string): Promise<boolean> {
    return (await this.redis.exists(keys.buyConfirm(orderId))) === 1;
  }

  async simulated(orderId: string): Promise<boolean> {
    return (await this.redis.exists(keys.simulated(orderId))) === 1;
  }

  async markSimulated(orderId: string): Promise<void> {
    await this.redis.set(keys.simulated(orderId), "1", "EX", SIMULATED_TTL_SECONDS);
  }

  /** The first "New quote" press on an expired buy order. */
  claimRequote(orderId: string): Promise<boolean> {
    return claimKey(this.redis, keys.buyRequote(orderId), "1", REQUOTE_TTL_SECONDS * 1000);
  }
}
