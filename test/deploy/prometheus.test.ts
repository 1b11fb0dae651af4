import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";

/**
 * deploy/prometheus: the scrape configuration and the alert rules are what Prometheus accepts (promtool, from
 * Debian's `prometheus` package; .ci/run installs it), the rules fire when they should (alerts.test.yml), and every
 * metric a rule reads is one a real bot process exports — a renamed metric would otherwise silence its alert.
 */
const DIR = fileURLToPath(new URL("../../deploy/prometheus/", import.meta.url));

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync("promtool", args, { cwd: DIR, encoding: "utf8", timeout: 20_000 });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("deploy/prometheus", () => {
  it("is a valid configuration that loads alerts.yml", () => {
    const config = promtool("check", "config", "prometheus.yml");
    expect(config.output).toContain("SUCCESS: 1 rule files found");
    expect(config.status, config.output).toBe(0);
    const rules = promtool("check", "rules", "alerts.yml");
    expect(rules.status, rules.output).toBe(0);
  });

  it("fires the rules as alerts.test.yml expects", () => {
    const tests = promtool("test", "rules", "alerts.test.yml");
    expect(tests.output).toContain("SUCCESS");
    expect(tests.status, tests.output).toBe(0);
  });

  it("has the rules ops need", () => {
    const alerts = [...readFileSync(`${DIR}alerts.yml`, "utf8").matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(alerts).toEqual(
      expect.arrayContaining([
        "BotProcessDown",
        "BotAllProcessesDown",
        "PayoutApiDown",
        "WebhooksSilent",
        "QueueBacklog",
        "DeadLetters",
        "RefundAwaitingApproval",
      ]),
    );
  });

  describe("reads only metrics the bot exports", () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it("every metric named in alerts.yml is on a bot process's metrics listener", async () => {
      const rules = readFileSync(`${DIR}alerts.yml`, "utf8");
      const expressions = [...rules.matchAll(/expr: (>-\n(?:\s{10}.*\n)+|.*)/g)].map((m) => m[1]).join("\n");
      const named = new Set(
        [...expressions.matchAll(/\b((?:payoutbot|process|nodejs)_[a-z0-9_]+)/g)].map((m) =>
          m[1]!.replace(/_(bucket|count|sum)$/, ""),
        ),
      );
      expect(named.size).toBeGreaterThan(8);
      const scrape = await (await fetch(`${stack.app.metricsUrl}/metrics`)).text();
      const exported = new Set([...scrape.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      expect([...named].filter((name) => !exported.has(name))).toEqual([]);
      expect(named).toContain("payoutbot_refunds_open");
      // Read from the store at scrape time, zeros included, so the refund rules always have a series to compare.
      expect(scrape).toMatch(/^payoutbot_refunds_open\{state="awaiting_approval"\} 0$/m);
    });
  });
});
