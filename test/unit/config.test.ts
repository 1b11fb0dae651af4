import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "#src/config.js";

describe("loadConfig", () => {
  it("runs in local mode on the embedded sandbox with no configuration", () => {
    const config = loadConfig({});
    expect(config.localMode).toBe(true);
    expect(config.payout.embeddedSandbox).toBe(true);
    expect(config.telegram.apiRoot).toBe("https://api.telegram.org");
    expect(config.telegram.mode).toBe("polling");
    expect(config.http.port).toBe(8080);
    expect(config.bitcoinNetwork).toBe("signet");
    expect(config.admin.userIds).toEqual([]);
  });

  it("serves metrics on a loopback listener by default, and on the public port only with a bearer token", () => {
    expect(loadConfig({}).http.metrics).toEqual({ host: "127.0.0.1", port: 9464, token: undefined });
    const token = "scrape-0123456789abcdef";
    expect(
      loadConfig({ METRICS_PORT: "9100", METRICS_HOST: "0.0.0.0", METRICS_TOKEN: token }).http.metrics,
    ).toEqual({ host: "0.0.0.0", port: 9100, token });
    expect(loadConfig({ METRICS_PORT: "off" }).http.metrics.port).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: "0" }).http.metrics.port).toBe(0);
    for (const [name, value] of [
      ["METRICS_PORT", "70000"],
      ["METRICS_PORT", "nine"],
      ["METRICS_TOKEN", "short"],
      ["METRICS_TOKEN", "has spaces in the middle of it"],
    ] as const) {
      let caught: unknown;
      try {
        loadConfig({ [name]: value });
      } catch (error) {
        caught = error;
      }
      expect(caught, `${name}=${value}`).toBeInstanceOf(ConfigError);
      expect(String((caught as Error).message)).toContain(name);
      expect(String((caught as Error).message)).not.toContain(value);
    }
  });

  it("strips a trailing slash from the Telegram API root", () => {
    const config = loadConfig({ TELEGRAM_API_ROOT: "http://127.0.0.1:9000///" });
    expect(config.telegram.apiRoot).toBe("http://127.0.0.1:9000");
  });

  it("parses admin ids and the admin chat", () => {
    const config = loadConfig({ ADMIN_USER_IDS: "1, 22 333", ADMIN_CHAT_ID: "-1001234" });
    expect(config.admin.userIds).toEqual([1, 22, 333]);
    expect(config.admin.chatId).toBe(-1001234);
  });

  it("lists every problem at once and never echoes secret values", () => {
    const secretKey = "sk_live_super_secret_value";
    let caught: unknown;
    try {
      loadConfig({
        BOT_TOKEN: "not-a-token-but-secret",
        BOT_MODE: "carrier-pigeon",
        PORT: "99999",
        PAYOUT_API_BASE_URL: "ftp://example.com",
        PAYOUT_API_KEY: secretKey,
        ADMIN_USER_IDS: "12,abc",
        PAYOUT_ENV: "production",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    const joined = problems.join("\n");
    expect(joined).toMatch(/^BOT_TOKEN /m);
    expect(joined).toMatch(/^BOT_MODE /m);
    expect(joined).toMatch(/^PORT /m);
    expect(joined).toMatch(/^PAYOUT_API_BASE_URL /m);
    expect(joined).toMatch(/^ADMIN_USER_IDS /m);
    expect(joined).not.toContain(secretKey);
    expect(joined).not.toContain("not-a-token-but-secret");
  });

  it("requires what webhook mode and a real payout API need", () => {
    expect(() =>
      loadConfig({ BOT_MODE: "webhook", PAYOUT_API_BASE_URL: "https://api.example.com/api/v1" }),
    ).toThrowError(/PUBLIC_URL[\s\S]*BOT_TOKEN[\s\S]*PAYOUT_API_KEY[\s\S]*PAYOUT_WEBHOOK_SECRET/);
  });

  it("requires a real Redis in production (no private redis-server, no in-memory fallback)", () => {
    expect(() => loadConfig({ PAYOUT_ENV: "production" })).toThrowError(
      /REDIS_URL is required when PAYOUT_ENV=production/,
    );
  });

  it("offers Lightning payment links against the sandbox by default, elsewhere only when told", () => {
    expect(loadConfig({}).paymentLinkLightning).toBe(true);
    const real = { PAYOUT_API_BASE_URL: "https://staging.api.mavapay.co/api/v1", PAYOUT_API_KEY: "k" };
    const staging = { ...real, PAYOUT_ENV: "staging", PAYOUT_WEBHOOK_SECRET: "s" };
    expect(loadConfig(staging).paymentLinkLightning).toBe(false);
    expect(loadConfig({ ...staging, PAYMENT_LINK_LIGHTNING: "true" }).paymentLinkLightning).toBe(true);
    expect(loadConfig({ PAYMENT_LINK_LIGHTNING: "no" }).paymentLinkLightning).toBe(false);
    expect(() => loadConfig({ PAYMENT_LINK_LIGHTNING: "maybe" })).toThrowError(/PAYMENT_LINK_LIGHTNING/);
  });

  it("gives each user a quote budget: 5 open, 20 per 10 minutes unless set", () => {
    expect(loadConfig({}).quoteBudget).toEqual({ maxOpen: 5, maxInWindow: 20, windowMs: 600_000 });
    expect(loadConfig({ QUOTE_BUDGET_OPEN: "3", QUOTE_BUDGET_RATE: "40/3600" }).quoteBudget).toEqual({
      maxOpen: 3,
      maxInWindow: 40,
      windowMs: 3_600_000,
    });
    for (const [name, value] of [
      ["QUOTE_BUDGET_OPEN", "0"],
      ["QUOTE_BUDGET_RATE", "off"],
      ["QUOTE_BUDGET_RATE", "0/600"],
      ["QUOTE_BUDGET_RATE", "20/0"],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrowError(name);
    }
  });
});
