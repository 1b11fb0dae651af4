import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { parseJson } from "./json.ts";
import { keys } from "./keys.ts";
import type { UpdateReads } from "./update-reads.ts";

/** What can be paused on its own: a payout country, or buying bitcoin. */
export const PAUSE_SCOPES = [...COUNTRIES, "BUY"] as const;
export type PauseScope = (typeof PAUSE_SCOPES)[number];

const pauseSchema = z.object({
  /** Shown to users instead of a quote; absent = the default localized text. */
  message: z.string().optional(),
  since: z.string().optional(),
  by: z.number().int().optional(),
  /** When the pause lapses by itself (ISO); absent = until ops resume. */
  until: z.string().optional(),
});
export type PauseState = z.infer<typeof pauseSchema>;

/**
 * Process-wide switches set by ops (/maintenance). Every bot process reads them from Redis, so they agree.
 * `paused` (+ message, until) is the pause of everything; `scopes` holds pauses of single corridors.
 */
const maintenanceSchema = pauseSchema.extend({
  paused: z.boolean(),
  scopes: z.partialRecord(z.enum(PAUSE_SCOPES), pauseSchema).optional(),
});
export type MaintenanceState = z.infer<typeof maintenanceSchema>;

/** Daily payout limits per user, per corridor, in the corridor currency's minor units (set by ops: /limits). */
export const LIMIT_CORRIDORS = COUNTRIES;
export type LimitCorridor = (typeof LIMIT_CORRIDORS)[number];
const dailyLimitsSchema = z.partialRecord(z.enum(LIMIT_CORRIDORS), z.number().int().positive());
type DailyLimits = z.infer<typeof dailyLimitsSchema>;

/**
 * Read ahead by every update's first round trip (store/update-reads.ts): most payout and buy steps check the
 * maintenance switch, and every quote (the amount step) the daily limits.
 */
export const SETTINGS_READ_AHEAD: readonly string[] = [
  keys.settingsMaintenance(),
  keys.settingsDailyLimits(),
];

export class SettingsRepository {
  constructor(
    private readonly redis: Redis,
    /** Within one update a setting is read once (store/update-reads.ts). */
    private readonly reads: UpdateReads,
  ) {}

  async maintenance(): Promise<MaintenanceState> {
    return this.readAhead(keys.settingsMaintenance(), maintenanceSchema, { paused: false });
  }

  async setMaintenance(state: MaintenanceState): Promise<void> {
    await this.redis.set(keys.settingsMaintenance(), JSON.stringify(state));
    this.reads.wrote(keys.settingsMaintenance(), state);
  }

  async dailyLimits(): Promise<DailyLimits> {
    return this.readAhead(keys.settingsDailyLimits(), dailyLimitsSchema, {});
  }

  /** A setting of SETTINGS_READ_AHEAD: as the update's first round trip read it, else from Redis; once per update. */
  private readAhead<T>(key: string, schema: z.ZodType<T>, absent: T): Promise<T> {
    return this.reads.read(key, async () => {
      const seeded = this.reads.takeSeeded<string>(key);
      const raw = seeded === undefined ? await this.redis.get(key) : seeded;
      return parseJson(raw, schema) ?? absent;
    });
  }

  /** Set (or, with undefined, remove) one corridor's limit; the others are kept. */
  async setDailyLimit(corridor: LimitCorridor, amountMinor: number | undefined): Promise<DailyLimits> {
    const limits = { ...(await this.dailyLimits()) };
    if (amountMinor === undefined) delete limits[corridor];
    else limits[corridor] = amountMinor;
    await this.redis.set(keys.settingsDailyLimits(), JSON.stringify(limits));
    this.reads.wrote(keys.settingsDailyLimits(), limits);
    return limits;
  }
}
