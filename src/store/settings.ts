import type { Redis } from "ioredis";
import { z } from "zod";
import { readJson } from "./json.ts";

/** What can be paused on its own: a payout country, or buying bitcoin. */
export const PAUSE_SCOPES = ["NG", "KE", "ZA", "GH", "BUY"] as const;
export type PauseScope = (typeof PAUSE_SCOPES)[number];

export const pauseSchema = z.object({
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
export const maintenanceSchema = pauseSchema.extend({
  paused: z.boolean(),
  scopes: z.partialRecord(z.enum(PAUSE_SCOPES), pauseSchema).optional(),
});
export type MaintenanceState = z.infer<typeof maintenanceSchema>;

export const settingsKeys = {
  maintenance: () => "settings:maintenance",
} as const;

export class SettingsRepository {
  constructor(private readonly redis: Redis) {}

  async maintenance(): Promise<MaintenanceState> {
    return (await readJson(this.redis, settingsKeys.maintenance(), maintenanceSchema)) ?? { paused: false };
  }

  async setMaintenance(state: MaintenanceState): Promise<void> {
    await this.redis.set(settingsKeys.maintenance(), JSON.stringify(state));
  }
}
