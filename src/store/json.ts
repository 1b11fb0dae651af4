import type { Redis } from "ioredis";
import type { z } from "zod";

/** Read a JSON value and validate it; a corrupt or outdated record reads as absent rather than crashing a handler. */
export async function readJson<T>(redis: Redis, key: string, schema: z.ZodType<T>): Promise<T | undefined> {
  const raw = await redis.get(key);
  if (raw === null) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function parseJson<T>(raw: string | null | undefined, schema: z.ZodType<T>): T | undefined {
  if (raw === null || raw === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
