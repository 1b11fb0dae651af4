import type { BotDeps } from "#src/bot/context.js";
import type { CacheEntry } from "#src/store/index.js";

/**
 * The last value parsed per cache entry, with the exact text it came from. Every step still reads Redis (another
 * process, or ops, may have replaced the entry), but an unchanged entry is not parsed again: comparing the text
 * is far cheaper than JSON.parse of a bank list. Values handed out are shared: callers only read them.
 */
const parsed = new Map<string, { raw: string; value: unknown }>();

export async function cached<T>(
  deps: Pick<BotDeps, "store">,
  entry: CacheEntry,
  ttl: number,
  load: () => Promise<T>,
  complete: (value: T) => boolean,
): Promise<T> {
  const key = JSON.stringify(entry);
  const raw = await deps.store.caches.read(entry);
  if (raw) {
    const known = parsed.get(key);
    if (known?.raw === raw) return known.value as T;
    try {
      const value = JSON.parse(raw) as T;
      parsed.set(key, { raw, value });
      return value;
    } catch {
      // A corrupt cache entry is reloaded below.
    }
  }
  const value = await load();
  // An empty list or a partial answer is used once but not kept: the next call asks again.
  if (complete(value)) {
    const text = JSON.stringify(value);
    await deps.store.caches.write(entry, text, ttl);
    parsed.set(key, { raw: text, value });
  }
  return value;
}
