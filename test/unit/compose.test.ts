import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * compose.yaml cannot be run here (no Docker engine) and no YAML parser is installed: check its shape line by line
 * — the settings production depends on are present where they belong.
 */
const text = readFileSync(new URL("../../compose.yaml", import.meta.url), "utf8");
const lines = text.split("\n");

/** The lines of a top-level (indent 2) service block. */
function service(name: string): string {
  const start = lines.indexOf(`  ${name}:`);
  expect(start, `service ${name}`).toBeGreaterThan(-1);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^ {0,2}\S/.test(line));
  return rest.slice(0, end === -1 ? undefined : end).join("\n");
}

describe("compose.yaml", () => {
  it("is indented with spaces only, in steps of two", () => {
    for (const line of lines) {
      expect(line).not.toMatch(/\t/);
      expect((/^ */.exec(line)?.[0].length ?? 0) % 2).toBe(0);
    }
    expect(lines.filter((line) => /^\S/.test(line) && !line.startsWith("#"))).toEqual([
      "name: payout-bot",
      "services:",
      "volumes:",
    ]);
  });

  it("runs Redis with AOF, no eviction, a named volume and a health check", () => {
    const redis = service("redis");
    expect(redis).toMatch(/- --appendonly\n\s+- "yes"/);
    expect(redis).toMatch(/- --maxmemory-policy\n\s+- noeviction/);
    expect(redis).toContain("- redis-data:/data");
    expect(redis).toMatch(/healthcheck:\n\s+test: \["CMD", "redis-cli", "ping"\]/);
    expect(text).toMatch(/^volumes:\n {2}redis-data:/m);
  });

  it("starts the bot after Redis is healthy, from .env, with a readiness health check inside the stop timeout", () => {
    const bot = service("bot");
    expect(bot).toContain("build: .");
    expect(bot).toContain("env_file: .env");
    expect(bot).toContain("REDIS_URL: redis://redis:6379/0");
    expect(bot).toMatch(/depends_on:\n\s+redis:\n\s+condition: service_healthy/);
    expect(bot).toMatch(/healthcheck:\n\s+test:/);
    expect(bot).toContain("/readyz");
    expect(bot).toContain("stop_grace_period: 10s");
  });
});
