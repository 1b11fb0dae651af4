import type { Redis } from "ioredis";
import { z } from "zod";
import { readJson } from "./json.ts";

/** Process-wide switches set by ops (/maintenance). Every bot process reads them from Redis, so they agree. */
export const maintenanceSchema = z.object({
  paused: z.boolean(),
  /** Shown to users instead of a quote; absent = the default localized text. */
  message: z.string().optional(),
  since: z.string().optional(),
  by: z.number().int().optional(),
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
