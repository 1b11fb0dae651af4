import { Queue } from "bullmq";
import { Bot, webhookCallback } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi, parseWebhookEvent } from "#src/api/index.js";
import { ensureWebhookRegistered, signWebhookBody } from "#src/events/index.js";
import { type IngestJobData, webhookEventRefs } from "#src/events/ingest.js";
import type { QueueBackend } from "#src/events/queue.js";
import { createBullmqBackend } from "#src/events/queue-bullmq.js";
import { createWebhookReceiver } from "#src/events/receiver.js";
import {
  createHttpServer,
  createMetricsServer,
  type HttpServer,
  type MetricsServer,
} from "#src/http/index.js";
import { silentLogger } from "#src/log/logger.js";
import { createMetrics } from "#src/metrics.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { QUEUE_NAMES } from "#src/store/index.js";
import { EventDeduper } from "#src/store/webhook-dedupe.js";
import { freshRedis } from "../support/redis.ts";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let redis: Redis;
let backend: QueueBackend<IngestJobData, unknown>;
/** A plain BullMQ view of the same ingest queue, to read what the receiver queued. */
let queue: Queue;
let server: HttpServer;
let base: string;
/** The metrics listener (its own port) and a public server with no metrics token. */
let metricsServer: MetricsServer;
let metricsBase: string;
let untokened: HttpServer;
let untokenedBase: string;
let tg: TelegramEmulator;
let healthy = true;
const metrics = createMetrics();
const logger = silentLogger();
const TELEGRAM_SECRET = "tg-secret_123";
const METRICS_TOKEN = "scrape-token-0123456789abcdef";

beforeAll(async () => {
  redis = await freshRedis();
  backend = createBullmqBackend({ redis, prefix: "httptest" });
  queue = new Queue(QUEUE_NAMES.ingest, { connection: redis.duplicate(), prefix: "httptest" });
  tg = await startTelegramEmulator();
  const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
  bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
  await bot.init();
  metrics.setQueueSource(() => backend.counts());
  server = createHttpServer({
    logger,
    port: 0,
    webhookBodyLimit: 1024,
    metrics: { registry: metrics.registry, token: METRICS_TOKEN },
    readinessTimeoutMs: 300,
    readiness: [
      { name: "redis", check: () => redis.ping() },
      {
        name: "payout_api",
        check: async () => {
          if (!healthy) throw new Error("down");
        },
      },
    ],
    // Unsigned deliveries allowed (the sandbox flag), and no secret configured at all.
    payoutWebhook: createWebhookReceiver({
      secret: undefined,
      allowUnsigned: true,
      parseEvent: (json) => {
        const parsed = parseWebhookEvent(json);
        return parsed.ok ? { event: parsed.event.event, refs: webhookEventRefs(parsed.event) } : undefined;
      },
      deduper: new EventDeduper(redis),
      // Recording = queueing here, so the test can read what the receiver accepted.
      accept: async (event, jobId) => {
        await backend.ingest.add("webhook", event, jobId ? { jobId } : {});
        return false;
      },
      logger,
      metrics,
    }),
    telegram: { secretToken: TELEGRAM_SECRET, handler: webhookCallback(bot, "http") },
  });
  base = (await server.start()).url;
  metricsServer = createMetricsServer({ logger, registry: metrics.registry, host: "127.0.0.1", port: 0 });
  metricsBase = (await metricsServer.start()).url;
  untokened = createHttpServer({ logger, port: 0 });
  untokenedBase = (await untokened.start()).url;
});
afterAll(async () => {
  await server?.stop(500);
  await metricsServer?.stop(500);
  await untokened?.stop(500);
  await queue?.close();
  await backend?.close(500);
  await tg?.close();
  await redis?.quit();
});

describe("the HTTP server", () => {
  it("reports liveness and readiness with a breakdown", async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ok", checks: { redis: "ok", payout_api: "ok" } });
    healthy = false;
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: "unavailable",
      checks: { redis: "ok", payout_api: "error" },
    });
    healthy = true;
    server.addReadinessCheck({ name: "slow", check: () => new Promise(() => undefined) });
    const slow = await fetch(`${base}/readyz`);
    expect(slow.status).toBe(503);
    expect(((await slow.json()) as { checks: Record<string, string> }).checks.slow).toBe("timeout");

    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/webhooks/payout`)).status).toBe(405);
  });

  it("accepts unsigned webhooks only when allowed, still refuses wrong signatures, limits body size", async () => {
    const body = JSON.stringify({
      event: "payment.received",
      data: { id: "tx-http-1", type: "DEPOSIT", status: "SUCCESS", hash: "h1", amount: 100, currency: "NGN" },
    });
    const post = (payload: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/webhooks/payout`, { method: "POST", body: payload, headers });
    expect((await post(body)).status).toBe(200);
    expect(await (await post(body)).json()).toEqual({ status: "duplicate" });
    expect((await post(body, { "x-mavapay-signature": signWebhookBody(body, "guess") })).status).toBe(401);
    expect((await post("x".repeat(2048))).status).toBe(413);
    expect((await queue.getJobCounts("waiting")).waiting).toBe(1);
    const [job] = await queue.getJobs(["waiting"]);
    expect(job?.data).toMatchObject({ kind: "webhook", envelope: { event: "payment.received" } });
  });

  it("passes Telegram updates on only with the secret token", async () => {
    const alice = tg.user({ id: 7001, first_name: "Alice", started: true });
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: alice.id, type: "private", first_name: "Alice" },
        from: alice.user,
        text: "hello",
      },
    };
    const send = (headers: Record<string, string>) =>
      fetch(`${base}/webhooks/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(update),
      });
    expect((await send({})).status).toBe(401);
    expect((await send({ "x-telegram-bot-api-secret-token": "wrong" })).status).toBe(401);
    expect(alice.messages()).toEqual([]);
    expect((await send({ "x-telegram-bot-api-secret-token": TELEGRAM_SECRET })).status).toBe(200);
    const reply = await alice.nextMessage();
    expect(reply.text).toBe("echo: hello");
  });
});

describe("/metrics", () => {
  const scrape = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/metrics`, { headers });

  it("is served by the metrics listener, and by nothing else on its port", async () => {
    const answer = await scrape(metricsBase);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("text/plain");
    const text = await answer.text();
    expect(text).toContain("payoutbot_webhook_events_total");
    expect(text).toMatch(/payoutbot_queue_jobs\{queue="payout-events",state="waiting"\} \d+/);
    expect(text).toContain("payoutbot_dead_letters");
    expect((await fetch(`${metricsBase}/healthz`)).status).toBe(404);
    expect((await fetch(`${metricsBase}/webhooks/payout`, { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("is not on the public port without a metrics token", async () => {
    const answer = await scrape(untokenedBase);
    expect(answer.status).toBe(404);
    expect(await answer.text()).not.toContain("payoutbot_");
    const bearer = await scrape(untokenedBase, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(bearer.status).toBe(404);
  });

  it("is on the public port to the token's bearer only", async () => {
    for (const authorization of [
      undefined,
      "Bearer ",
      "Bearer wrong-token-0123456789abcdef",
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Basic ${Buffer.from(`user:${METRICS_TOKEN}`).toString("base64")}`,
      METRICS_TOKEN,
    ]) {
      const answer = await scrape(base, authorization === undefined ? {} : { authorization });
      expect(answer.status, authorization).toBe(401);
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await answer.text()).not.toContain("payoutbot_");
    }
    const answer = await scrape(base, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("payoutbot_webhook_events_total");
  });
});

describe("webhook registration", () => {
  let sandbox: Sandbox;
  afterAll(async () => {
    await sandbox?.close();
  });

  it("registers when none, leaves a matching one alone, updates a different one", async () => {
    sandbox = await startSandbox({ port: 0 });
    const api = createPayoutApi({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, logger });
    const input = { api, publicUrl: "https://bot.example.com/", secret: "s3cret-value" };
    expect(await ensureWebhookRegistered(input)).toEqual({
      action: "registered",
      url: "https://bot.example.com/webhooks/payout",
    });
    expect((await ensureWebhookRegistered(input)).action).toBe("unchanged");
    expect((await ensureWebhookRegistered({ ...input, publicUrl: "https://new.example.com" })).action).toBe(
      "updated",
    );
    expect(
      (await ensureWebhookRegistered({ ...input, publicUrl: "https://new.example.com", secret: "other" }))
        .action,
    ).toBe("updated");
    const webhook = (await api.getUser()).account?.webhook;
    expect(webhook).toMatchObject({
      url: "https://new.example.com/webhooks/payout",
      secret: "other",
      isActive: true,
    });
    await api.close();
  });
});
