import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    // Most files wait on real processes, Redis and HTTP rather than compute: three at once on two cores cut the
    // suite from ~7.5 to ~4 minutes. Each worker has its own Redis database (test/support/redis.ts).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Shared, noisy machines: never assert timings; retrying hides nothing we rely on.
    retry: 0,
    reporters: ["default"],
  },
});
