import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * compose.yaml cannot be run here (no Docker engine) and no YAML parser is installed: check its shape line by line
 * — the settings production depends on are present where they belong, the default (one process) and the scaled
 * profile (web processes and a worker) are both whole, and nothing but Caddy's 80 and 443 is published.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const text = read("compose.yaml");
const lines = text.split("\n");

/** The names of the services, in order (keys at indent 2 under `services:`). */
function serviceNames(): string[] {
  const start = lines.indexOf("services:");
  const end = lines.findIndex((line, index) => index > start && /^\S/.test(line) && !line.startsWith("#"));
  return lines
    .slice(start + 1, end)
    .map((line) => /^ {2}([a-z0-9-]+):$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** The lines of a top-level (indent 2) service block. */
function service(name: string): string {
  const start = lines.indexOf(`  ${name}:`);
  expect(start, `service ${name}`).toBeGreaterThan(-1);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^ {0,2}\S/.test(line));
  return rest.slice(0, end === -1 ? undefined : end).join("\n");
}

/** The items of a list under `key:` at indent 4 in a service block (ports, volumes…). */
function list(block: string, key: string): string[] {
  const items = new RegExp(`\\n {4}${key}:\\n((?: {6}- .*\\n)+)`).exec(`\n${block}\n`)?.[1] ?? "";
  return items
    .trim()
    .split("\n")
    .map((item) => item.trim().replace(/^- /, ""))
    .filter(Boolean);
}

/** The network aliases of a service. */
function aliases(block: string): string[] {
  const items =
    /\n {4}networks:\n {6}default:\n {8}aliases:\n((?: {10}- .*\n)+)/.exec(`${block}\n`)?.[1] ?? "";
  return items
    .trim()
    .split("\n")
    .map((item) => item.trim().replace(/^- /, ""))
    .filter(Boolean);
}

const APP_SERVICES = ["bot", "web", "worker"] as const;
/** Compose's own `${…}` interpolation is written out with this, so it is not read as a template placeholder. */
const DOLLAR = "$";

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
    expect(serviceNames()).toEqual(["redis", "bot", "web", "worker", "caddy", "prometheus"]);
  });

  it("runs the single process by default and web processes plus a worker in the scaled profile", () => {
    // No profile: started by a plain `docker compose up`.
    for (const name of ["redis", "bot", "caddy", "prometheus"])
      expect(service(name)).not.toContain("profiles:");
    for (const name of ["web", "worker"]) expect(service(name)).toContain('profiles: ["scaled"]');
    // The scaled command leaves the single process out; the header says how.
    expect(text).toContain("docker compose --profile scaled up -d --build --scale bot=0");
    expect(service("bot")).toContain("PROCESS_ROLE: all");
    expect(service("web")).toContain("PROCESS_ROLE: web");
    expect(service("web")).toMatch(/deploy:\n\s+replicas: 2/);
    // Several processes take Telegram's updates only by webhook.
    expect(service("web")).toContain("BOT_MODE: webhook");
    expect(service("worker")).toContain("PROCESS_ROLE: worker");
  });

  it("runs Redis with AOF, no eviction, a named volume and a health check", () => {
    const redis = service("redis");
    expect(redis).toMatch(/- --appendonly\n\s+- "yes"/);
    expect(redis).toMatch(/- --maxmemory-policy\n\s+- noeviction/);
    expect(redis).toContain("- redis-data:/data");
    expect(redis).toMatch(/healthcheck:\n\s+test: \["CMD", "redis-cli", "ping"\]/);
    expect(text).toMatch(/^volumes:\n {2}redis-data:/m);
  });

  it("starts every bot process after Redis is healthy, from .env, on the one Redis, with its own metrics port", () => {
    for (const name of APP_SERVICES) {
      const app = service(name);
      expect(app, name).toContain("build: .");
      expect(app, name).toContain("env_file: .env");
      expect(app, name).toContain("REDIS_URL: redis://redis:6379/0");
      expect(app, name).toContain('PORT: "8080"');
      // The address Caddy serves is the one the bot registers its webhooks at.
      expect(app, name).toContain(`PUBLIC_URL: https://${DOLLAR}{PUBLIC_DOMAIN:?set PUBLIC_DOMAIN in .env}`);
      expect(app, name).toContain("METRICS_HOST: 0.0.0.0");
      expect(app, name).toContain('METRICS_PORT: "9464"');
      expect(app, name).toMatch(/depends_on:\n\s+redis:\n\s+condition: service_healthy/);
      expect(app, name).toMatch(/healthcheck:\n\s+test:/);
      expect(app, name).toContain("/readyz");
      expect(app, name).toContain("stop_grace_period: 10s");
      expect(app, name).toContain("restart: unless-stopped");
    }
  });

  it("routes public traffic to the web processes only and scrapes every process", () => {
    expect(aliases(service("bot"))).toEqual(["payout-web", "payout-metrics"]);
    expect(aliases(service("web"))).toEqual(["payout-web", "payout-metrics"]);
    expect(aliases(service("worker"))).toEqual(["payout-metrics"]);
    const caddyfile = read("deploy/caddy/Caddyfile");
    expect(caddyfile).toContain("dynamic a {$UPSTREAM_NAME:payout-web} {$UPSTREAM_PORT:8080}");
    const scrape = read("deploy/prometheus/prometheus.yml");
    expect(scrape).toMatch(/job_name: payout-bot/);
    expect(scrape).toMatch(/dns_sd_configs:\n\s+- names: \["payout-metrics"\]\n\s+type: A\n\s+port: 9464/);
    expect(scrape).toMatch(/rule_files:\n\s+- alerts.yml/);
  });

  it("publishes Caddy's 80 and 443 and nothing else but Prometheus's UI on loopback", () => {
    const published = serviceNames().flatMap((name) =>
      list(service(name), "ports").map((port) => [name, port]),
    );
    expect(published).toEqual([
      ["caddy", '"80:80"'],
      ["caddy", '"443:443"'],
      ["prometheus", '"127.0.0.1:9090:9090"'],
    ]);
    expect(text).not.toMatch(/expose:|network_mode:|9464:|8080:/);
  });

  it("runs Caddy with the Caddyfile and PUBLIC_DOMAIN, keeping its certificates in a volume", () => {
    const caddy = service("caddy");
    expect(caddy).toMatch(/image: caddy:\d+\.\d+\.\d+-alpine/);
    expect(caddy).toContain(`PUBLIC_DOMAIN: ${DOLLAR}{PUBLIC_DOMAIN:?set PUBLIC_DOMAIN in .env}`);
    expect(list(caddy, "volumes")).toEqual([
      "./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro",
      "caddy-data:/data",
      "caddy-config:/config",
    ]);
    // No secrets for the proxy: it reads nothing of the bot's .env.
    expect(caddy).not.toContain("env_file");
  });

  it("runs Prometheus with its configuration and the alert rules", () => {
    const prometheus = service("prometheus");
    expect(prometheus).toMatch(/image: prom\/prometheus:v\d+\.\d+\.\d+/);
    expect(prometheus).toContain("- --config.file=/etc/prometheus/prometheus.yml");
    expect(list(prometheus, "volumes")).toEqual([
      "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
      "./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro",
      "prometheus-data:/prometheus",
    ]);
    expect(text).toMatch(
      /^volumes:\n {2}redis-data:\n {2}prometheus-data:\n {2}caddy-data:\n {2}caddy-config:/m,
    );
  });
});
