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

  it("publishes the bot's public port only: its metrics listener is for the Prometheus on the compose network", () => {
    const bot = service("bot");
    expect(bot).toContain("METRICS_HOST: 0.0.0.0");
    expect(bot).toContain('METRICS_PORT: "9464"');
    const ports = /\n {4}ports:\n((?: {6}- .*\n)+)/.exec(`${bot}\n`)?.[1] ?? "";
    expect(ports.trim().split("\n")).toEqual(['- "8080:8080"']);
    expect(bot).not.toMatch(/9464:|expose:/);

    const prometheus = service("prometheus");
    expect(prometheus).toMatch(/image: prom\/prometheus:v\d+\.\d+\.\d+/);
    expect(prometheus).toContain("- ./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro");
    expect(prometheus).toContain("- --config.file=/etc/prometheus/prometheus.yml");
    // Its UI on the host's loopback only.
    expect(prometheus).toContain('- "127.0.0.1:9090:9090"');
    expect(text).toMatch(/^volumes:\n {2}redis-data:\n {2}prometheus-data:/m);

    const scrape = readFileSync(new URL("../../deploy/prometheus/prometheus.yml", import.meta.url), "utf8");
    expect(scrape).toMatch(/job_name: payout-bot/);
    expect(scrape).toContain('targets: ["bot:9464"]');
  });
});
