import type { Redis } from "ioredis";

/**
 * An in-memory Redis stand-in (ioredis-mock) for local mode on a machine with neither REDIS_URL nor redis-server:
 * the same ioredis API, our Lua scripts included, but every key lives in this process and is gone when it exits.
 * BullMQ's scripts do not run on it, so the events pipeline uses its in-process queue backend alongside.
 * Imported lazily by main.ts: production processes never load it.
 */
export async function createMemoryRedis(): Promise<Redis> {
  const { default: RedisMock } = await import("ioredis-mock").catch((error: unknown) => {
    // ioredis-mock is a dev dependency: a production install (`npm ci --omit=dev`) does not carry it.
    throw new Error(
      "local mode without Redis needs the dev dependencies (ioredis-mock): run npm install, or set REDIS_URL",
      { cause: error },
    );
  });
  // A unique "port" per call keeps separate instances apart (ioredis-mock shares data per host and port).
  return new RedisMock({ port: nextPort(), maxRetriesPerRequest: null });
}

let port = 60_000;
function nextPort(): number {
  port += 1;
  return port;
}
