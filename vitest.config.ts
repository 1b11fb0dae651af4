import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Shared, noisy machines: never assert timings; retrying hides nothing we rely on.
    retry: 0,
    reporters: ["default"],
  },
});
