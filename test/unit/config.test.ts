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
});
