import { Queue } from "bullmq";
import { Bot, webhookCallback } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi, parseWebhookEvent } from "#src/api/index.js";
import { ensureWebhookRegistered, QUEUE_NAMES, signWebhookBody } from "#src/events/index.js";
import { type IngestJobData, webhookEventRefs } from "#src/events/ingest.js";
import type { QueueBackend } from "#src/events/queue.js";
import { createBullmqBackend } from "#src/events/queue-bullmq.js";
import { createWebhookReceiver } from "#src/events/receiver.js";
import { createHttpServer, type HttpServer } from "#src/http/index.js";
import { silentLogger } from "#src/log/logger.js";
import { createMetrics } from "#src/metrics.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { EventDeduper } from "#src/store/webhook-dedupe.js";
import { freshRedis } from "../support/redis.ts";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let redis: Redis;
let backend: QueueBackend<IngestJobData, unknown>;
/** A plain BullMQ view of the same ingest queue, to read what the receiver queued. */
let queue: Queue;
let server: HttpServer;
let base: string;
let tg: TelegramEmulator;
let healthy = true;
const metrics = createMetrics();
const logger = silentLogger();
const TELEGRAM_SECRET = "tg-secret_123";

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
    metrics: metrics.registry,
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
});
afterAll(async () => {
  await server?.stop(500);
  await queue?.close();
  await backend?.close(500);
  await tg?.close();
  await redis?.quit();
});

describe("the HTTP server", () => {
  it("reports liveness, readiness with a breakdown, and metrics", async () => {
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

    const scrape = await (await fetch(`${base}/metrics`)).text();
    expect(scrape).toContain("payoutbot_webhook_events_total");
    expect(scrape).toMatch(/payoutbot_queue_jobs\{queue="payout-events",state="waiting"\} \d+/);
    expect(scrape).toContain("payoutbot_dead_letters");
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
