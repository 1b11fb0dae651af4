import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhookBody } from "#src/events/index.js";
import { freePort } from "#src/standins/local/redis-server.js";
import { type Stack, startStack } from "../support/stack.ts";
import { fetchThrough, type RunningCaddy, startCaddy } from "./caddy.ts";

/**
 * deploy/caddy/Caddyfile in front of the whole bot in webhook mode: Telegram's updates and the payout API's webhooks
 * reach it over HTTPS, untouched (signatures and secret headers intact), and nothing else of the bot is public —
 * /metrics least of all, even to its bearer.
 */
const DOMAIN = "bot.example.test";
const TELEGRAM_SECRET = "caddy-test-telegram-secret";
const METRICS_TOKEN = "caddy-test-metrics-token-0123456789";

describe("the TLS reverse proxy (deploy/caddy/Caddyfile)", () => {
  let stack: Stack;
  let caddy: RunningCaddy;
  let site: string;
  let httpPort: number;

  beforeAll(async () => {
    httpPort = await freePort();
    const httpsPort = await freePort();
    site = `https://${DOMAIN}:${httpsPort}`;
    stack = await startStack({
      env: {
        BOT_MODE: "webhook",
        PUBLIC_URL: site,
        TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
        METRICS_TOKEN,
      },
    });
    const upstream = new URL(stack.app.httpUrl!);
    caddy = await startCaddy({
      domain: DOMAIN,
      httpPort,
      httpsPort,
      upstream: { host: upstream.hostname, port: Number(upstream.port) },
    });
  });
  afterAll(async () => {
    await caddy?.stop();
    await stack?.stop();
  });

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetchThrough(caddy.dispatcher, `${site}${path}`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
    });

  it("delivers a Telegram update over HTTPS to the bot, which answers the user", async () => {
    expect(stack.tg.webhookInfo().url).toBe(`${site}/webhooks/telegram`);
    const user = stack.tg.user({ id: 7_801, first_name: "Ada", language_code: "en", started: true });
    const update = {
      update_id: 880_001,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: 7_801, type: "private", first_name: "Ada" },
        from: { id: 7_801, is_bot: false, first_name: "Ada", language_code: "en" },
        text: "/myid",
        entities: [{ type: "bot_command", offset: 0, length: 5 }],
      },
    };
    const forged = await post("/webhooks/telegram", JSON.stringify(update), {
      "x-telegram-bot-api-secret-token": "not-the-secret",
    });
    // The bot's own refusal, in its JSON: the request reached it, and its secret check still holds.
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ status: "error", message: "unauthorized" });

    const sent = await post("/webhooks/telegram", JSON.stringify(update), {
      "x-telegram-bot-api-secret-token": TELEGRAM_SECRET,
    });
    expect(sent.status).toBe(200);
    await sent.arrayBuffer();
    expect((await user.nextMessage()).text).toContain("Your Telegram ID: 7801");
  });

  it("delivers a signed payout webhook byte for byte", async () => {
    const body = JSON.stringify({
      event: "payment.received",
      data: {
        id: "caddy-1",
        type: "DEPOSIT",
        status: "SUCCESS",
        hash: "h-caddy-1",
        amount: 100,
        currency: "NGN",
      },
    });
    const signed = await post("/webhooks/payout", body, {
      "x-mavapay-signature": signWebhookBody(body, stack.sandbox.webhookSecret),
    });
    expect(signed.status).toBe(200);
    expect(await signed.json()).toEqual({ status: "ok" });
    const forged = await post("/webhooks/payout", body, {
      "x-mavapay-signature": signWebhookBody(body, "x"),
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ status: "error", message: "invalid signature" });
  });

  it("does not pass on /metrics (not even to its bearer), /readyz or anything else; /healthz it does", async () => {
    const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };
    // The bot itself would serve it to this bearer on its port: only the proxy keeps it in.
    expect((await fetch(`${stack.app.httpUrl}/metrics`, { headers: bearer })).status).toBe(200);
    for (const path of ["/metrics", "/readyz", "/", "/webhooks", "/webhooks/payout/../../metrics"]) {
      const response = await fetchThrough(caddy.dispatcher, `${site}${path}`, { headers: bearer });
      expect(response.status, path).toBe(404);
      // Caddy's empty 404, not the bot's JSON one: the request never reached the bot.
      expect(await response.text(), path).toBe("");
    }
    const health = await fetchThrough(caddy.dispatcher, `${site}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("redirects plain HTTP to HTTPS", async () => {
    const response = await fetchThrough(caddy.dispatcher, `http://${DOMAIN}:${httpPort}/webhooks/payout`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(308);
    // To the https port on the site's name (Caddy 2.6 leaves a non-default https port out; production's is 443).
    const location = new URL(response.headers.get("location") ?? "");
    expect([location.protocol, location.hostname, location.pathname]).toEqual([
      "https:",
      DOMAIN,
      "/webhooks/payout",
    ]);
  });
});
