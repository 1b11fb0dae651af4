import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type SpawnedBot, spawnBot, stopAllBots } from "../support/spawn-bot.ts";
import { startStack } from "../support/stack.ts";
import { nigerianRecipient } from "./payout-support.ts";

/**
 * What an operator relies on: /metrics tells the truth about the payout API, /readyz means "this process can take
 * traffic" (not "the provider is up") and turns 503 as soon as shutdown begins, the process exits within 8 s of
 * SIGTERM, and a dependency it cannot reach at start is named in the log at once.
 */

/** GET /metrics on the metrics listener (the public port does not serve it without METRICS_TOKEN). */
async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample line, e.g. `name{a="b"} 3`; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([^{\s]+)(?:\{([^}]*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe("payout API metrics", () => {
  it("counts and times a failing flow's payout API calls, with Node's process metrics under standard names", async () => {
    const stack = await startStack();
    try {
      const user = stack.tg.user({ id: 9301, first_name: "Kemi" });
      await nigerianRecipient(user);
      const fault = await fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ endpoint: "POST /quote", mode: "500" }),
      });
      expect(fault.ok).toBe(true);
      await user.send("5000");
      await user.nextMessage();

      const text = await scrape(stack.app.metricsUrl ?? "");
      const quote = { endpoint: "POST /quote", outcome: "server" };
      expect(
        sample(text, "payoutbot_payout_api_errors_total", { kind: "server", endpoint: "POST /quote" }),
      ).toBe(1);
      expect(sample(text, "payoutbot_payout_api_request_duration_seconds_count", quote)).toBe(1);
      expect(
        sample(text, "payoutbot_payout_api_request_duration_seconds_bucket", { ...quote, le: "+Inf" }),
      ).toBe(1);
      // The calls that worked are timed too, by route template (ids never become labels).
      const enquiry = { endpoint: "GET /bank/name-enquiry", outcome: "ok" };
      expect(sample(text, "payoutbot_payout_api_request_duration_seconds_count", enquiry)).toBe(1);
      expect(text).not.toMatch(/endpoint="[^"]*\d{6,}/);
      // The periodic probe ran at start against the (healthy) sandbox.
      expect(sample(text, "payoutbot_payout_api_up")).toBe(1);
      expect(sample(text, "process_cpu_seconds_total")).toBeGreaterThan(0);
      expect(sample(text, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
      expect(text).not.toContain("payoutbot_process_");
      expect(text).toMatch(/# HELP payoutbot_queue_jobs .*prioritized/);
    } finally {
      await stack.stop();
    }
  });
});

describe("the bot process (spawned)", () => {
  let tg: TelegramEmulator;
  beforeAll(async () => {
    tg = await startTelegramEmulator();
  });
  afterEach(stopAllBots);
  afterAll(async () => {
    await stopAllBots();
    await tg?.close();
  });

  const env = (extra: Record<string, string>) => ({
    NODE_ENV: "test",
    BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    REDIS_URL: testRedisUrl(),
    HOST: "127.0.0.1",
    PORT: "0",
    METRICS_PORT: "0",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    ...extra,
  });

  async function urlOf(bot: SpawnedBot, listening: string): Promise<string> {
    const line = await bot.waitForLog(listening, { timeoutMs: 30_000 });
    return `http://127.0.0.1:${String(line.port)}`;
  }

  it("stays ready while the payout API is down, then answers 503 from SIGTERM and exits within 8 s", async () => {
    // Nothing listens on port 9: the payout API is unreachable for the whole test.
    const bot = spawnBot({
      env: env({
        PAYOUT_API_BASE_URL: "http://127.0.0.1:9/api/v1",
        PAYOUT_API_KEY: "test-key",
        PAYOUT_WEBHOOK_SECRET: "test-secret",
        PAYOUT_ENV: "sandbox",
      }),
    });
    const url = await urlOf(bot, "http server listening");
    const metricsUrl = await urlOf(bot, "metrics listener listening");
    await bot.waitForLog(/payout api: cannot reach http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/, {
      timeoutMs: 30_000,
    });
    await bot.waitForLog("bot started", { timeoutMs: 30_000 });

    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { checks: Record<string, string> };
    expect(body.checks).not.toHaveProperty("payout_api");
    expect(sample(await scrape(metricsUrl), "payoutbot_payout_api_up")).toBe(0);

    const signalled = performance.now();
    bot.child.kill("SIGTERM");
    const statuses: number[] = [];
    while (!bot.exitInfo) {
      const status = await fetch(`${url}/readyz`).then(
        (response) => response.status,
        () => 0,
      );
      statuses.push(status);
      if (status === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exit = await bot.exited;
    const seconds = (performance.now() - signalled) / 1000;
    console.info(`operator: SIGTERM to exit took ${seconds.toFixed(2)} s`);
    expect(statuses).toContain(503);
    expect(statuses.indexOf(503)).toBeLessThanOrEqual(1);
    expect(exit).toMatchObject({ code: 0, forced: false });
    // Functional bound: the forced exit is at 8 s (inside Docker's default 10 s stop timeout).
    expect(seconds).toBeLessThan(10);
    expect(bot.logs().some((line) => line.msg === "bot stopped")).toBe(true);
  });

  it("names an unreachable Telegram at once, with the reason and the next try", async () => {
    const spawned = performance.now();
    const bot = spawnBot({ env: env({ TELEGRAM_API_ROOT: "http://127.0.0.1:9" }) });
    const line = await bot.waitForLog(/telegram: cannot reach/, { timeoutMs: 30_000 });
    const listening = bot.logs().find((logged) => logged.msg === "http server listening");
    console.info(
      `operator: first telegram line ${Math.round(performance.now() - spawned)} ms after spawn, ` +
        `${Number(line.time) - Number(listening?.time)} ms after the HTTP server listened`,
    );
    expect(line.msg).toBe(
      "telegram: cannot reach http://127.0.0.1:9 (ECONNREFUSED), retrying in 2 s (attempt 1)",
    );
    expect(line.raw).not.toContain(tg.token);
    expect(bot.logs().some((logged) => logged.msg === `redis: connected to 127.0.0.1:${redisPort()}`)).toBe(
      true,
    );
    const exit = await bot.kill("SIGTERM");
    expect(exit.forced).toBe(false);
  });
});

function redisPort(): string {
  return new URL(testRedisUrl()).port;
}
