import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { parseJson } from "./json.ts";

/** A Telegram user as the bot keeps them (store/users.ts writes it; an update's first reads parse it). */
export const userRecordSchema = z.object({
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
