import type { TestProject } from "vitest/node";
import { startPrivateRedis } from "#src/standins/local/redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** One private redis-server per test run; each worker uses its own database (see redis.ts). */
export default async function setup(project: TestProject) {
  const redis = await startPrivateRedis({ databases: 64 });
  project.provide("redisUrl", redis.url);
  return async () => {
    await redis.stop();
  };
}
