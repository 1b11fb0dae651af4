import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { claimKey } from "./claims.ts";
import { parseJson } from "./json.ts";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";

/**
 * Rate alerts: "tell me when 100,000 sats buy more than X" per corridor. An alert is one-shot: it is armed until
 * the rate crosses its threshold, then claimed (removed everywhere in one script) by whichever check saw it first,
 * and that claim is what sends the one notification. Armed alerts sit in a sorted set per corridor scored by
 * threshold, so a check reads only the crossed ones: ZRANGEBYSCORE -inf (rate — O(log n + crossed).
 */
const RATE_ALERT_COUNTRIES = COUNTRIES;

const rateAlertSchema = z.object({
  id: z.string(),
  userId: z.number().int(),
  country: z.enum(RATE_ALERT_COUNTRIES),
  /** Minor units of the corridor's currency that 100,000 sats must buy more than. */
  threshold: z.number().int().positive(),
  createdAt: z.string(),
});
export type RateAlert = z.infer<typeof rateAlertSchema>;

/** Alerts one user may have armed at once. */
export const MAX_RATE_ALERTS = 5;

export class RateAlertLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} rate alerts`);
    this.name = "RateAlertLimitError";
  }
}

/** KEYS: user set, alert, corridor zset. ARGV: id, JSON, threshold, cap. 0 = over the cap. */
const ADD = new LuaScript(
  `if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
   redis.call('SET', KEYS[2], ARGV[2])
   redis.call('SADD', KEYS[1], ARGV[1])
   redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
   return 1`,
);

/**
 * Take an alert out of everything at once, if it still holds what the caller read. Both "fire" and "remove" go
 * through it, so whoever runs it first owns the alert: two checks (two processes, or one tick run twice) that
 * both saw it crossed get one claim between them. KEYS: alert, corridor zset, user set. ARGV: record read, id.
 */
const CLAIM = new LuaScript(
  `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
   redis.call('DEL', KEYS[1])
   redis.call('ZREM', KEYS[2], ARGV[2])
   redis.call('SREM', KEYS[3], ARGV[2])
   return 1`,
);

export class RateAlertRepository {
  constructor(private readonly redis: Redis) {}

  /** Arm a new alert; RateAlertLimitError when the user already has MAX_RATE_ALERTS. */
  async add(input: Omit<RateAlert, "id" | "createdAt">): Promise<RateAlert> {
    const alert = rateAlertSchema.parse({
      ...input,
      id: randomBytes(6).toString("hex"),
      createdAt: new Date().toISOString(),
    });
    const added = await ADD.run(
      this.redis,
      [keys.userRateAlerts(alert.userId), keys.rateAlert(alert.id), keys.rateAlertsByCorridor(alert.country)],
      [alert.id, JSON.stringify(alert), alert.threshold, MAX_RATE_ALERTS],
    );
    if (added !== 1) throw new RateAlertLimitError(MAX_RATE_ALERTS);
    return alert;
  }

  /** A user's armed alerts, by corridor then threshold. */
  async list(userId: number): Promise<RateAlert[]> {
    const ids = await this.redis.smembers(keys.userRateAlerts(userId));
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => keys.rateAlert(id)));
    return raws
      .map((raw) => parseJson(raw, rateAlertSchema))
      .filter((alert): alert is RateAlert => alert !== undefined)
      .sort((a, b) => a.country.localeCompare(b.country) || a.threshold - b.threshold);
  }

  /** Remove one of the user's alerts; false when it was not theirs or already gone (fired, removed). */
  async remove(userId: number, alertId: string): Promise<boolean> {
    return (await this.claim(alertId, userId)) !== undefined;
  }

  /** Whether the corridor has any armed alert (the check skips the price fetch otherwise). */
  async armed(country: RateAlert["country"]): Promise<boolean> {
    return (await this.redis.zcard(keys.rateAlertsByCorridor(country))) > 0;
  }

  /** Ids of the corridor's alerts whose threshold is below `rate` (strictly: "more than"), at most `limit`. */
  async crossed(country: RateAlert["country"], rate: number, limit = 500): Promise<string[]> {
    return this.redis.zrangebyscore(
      keys.rateAlertsByCorridor(country),
      "-inf",
      `(${rate}`,
      "LIMIT",
      0,
      limit,
    );
  }

  /** Take the alert out for good and return it: exactly one caller gets it, across processes. */
  async claim(alertId: string, owner?: number): Promise<RateAlert | undefined> {
    const raw = await this.redis.get(keys.rateAlert(alertId));
    const alert = parseJson(raw, rateAlertSchema);
    if (!raw || !alert || (owner !== undefined && alert.userId !== owner)) return undefined;
    const claimed = await CLAIM.run(
      this.redis,
      [keys.rateAlert(alertId), keys.rateAlertsByCorridor(alert.country), keys.userRateAlerts(alert.userId)],
      [raw, alertId],
    );
    return claimed === 1 ? alert : undefined;
  }

  /** Claim this process's tick for `ms`: false when another process checked the rates within that time. */
  async claimTick(ms: number): Promise<boolean> {
    return claimKey(this.redis, keys.rateAlertTick(), "1", ms);
  }
}
