import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type App, createApp } from "#src/app.js";
import { ConfigError, loadConfig } from "#src/config.js";
import { signWebhookBody } from "#src/events/index.js";
import { PAYOUT_WEBHOOK_PATH } from "#src/http/index.js";
import { silentLogger } from "#src/log/logger.js";
import { QUEUE_NAMES } from "#src/store/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type Stack, startStack } from "../support/stack.ts";

/**
 * PROCESS_ROLE splits the bot into processes sharing one Redis: `web` acknowledges webhooks (and serves the bot)
 * without queue workers, so acks never wait behind deliveries; `worker` runs the queues and serves health only.
 */
const USER_ID = 7_301;
const ORDER_ID = "56188-2561";
const HASH = "ab".repeat(32);

function paymentReceived(): string {
  const at = new Date().toISOString();
  return JSON.stringify({
    event: "payment.received",
    data: {
      id: "0e7c1e53-5f5e-4c38-9a4e-0f7e5b7f2a11",
      walletId: "4b1f4c1e-2a7d-4d0e-8f0e-7c3a5e2b9d10",
      ref: "f".repeat(29),
      hash: HASH,
      amount: 1_000_000,
      fees: 0,
      currency: "NGN",
      type: "DEPOSIT",
      status: "SUCCESS",
      autopayout: true,
      createdAt: at,
      updatedAt: at,
      transactionMetadata: {
        id: "6a0c2f7e-1b3d-4e5f-8a9b-0c1d2e3f4a5b",
        orderId: ORDER_ID,
        bankCode: "000013",
        bankName: "GTBANK PLC",
        bankAccountName: "ADA OBI",
        bankAccountNumber: "0149200000",
        customerInternalFee: 0,
        customerReference: "roles-test",
        createdAt: at,
        updatedAt: at,
      },
    },
  });
}

let web: Stack | undefined;
let worker: App | undefined;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  await worker?.stop();
  await web?.stop();
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
  worker = undefined;
  web = undefined;
});

describe("process roles", () => {
  it("web applies and delivers what it receives without workers; a worker sweeps overdue deliveries and takes no webhooks", async () => {
    web = await startStack({ env: { PROCESS_ROLE: "web", REDIS_URL: testRedisUrl() } });
    const { app, tg, sandbox } = web;
    const user = tg.user({ id: USER_ID, first_name: "Ada", language_code: "en" });
    // The web process serves the bot: the user starts it (and so may be messaged later).
    await user.send("/start");
    await user.nextMessage({ timeoutMs: 20_000 });
    await tg.idle();
    user.consumeAll();
    await app.store.orders.create({
      orderId: ORDER_ID,
      quoteId: "9d3c1b2a-0f4e-4d5c-8b7a-6e5f4d3c2b1a",
      hash: HASH,
      kind: "payout",
      corridor: "NG",
      chatId: USER_ID,
      userId: USER_ID,
      pay: { amount: 6_000, currency: "BTCSAT" },
      receive: { amount: 1_000_000, currency: "NGNKOBO" },
      fee: { amount: 60, currency: "BTCSAT" },
      recipientLabel: "GTBANK PLC ••0000 · ADA OBI",
      verificationCode: "🦊🍋",
      confirmedAt: new Date().toISOString(),
      // The flow delivered its messages but the card is gone: the pipeline sends a new one (it waits for a card
      // the flow is still sending, not for one that was lost).
      deliveredAt: new Date().toISOString(),
      expiresAt: new Date(sandbox.now() + 3_600_000).toISOString(),
    });

    const body = paymentReceived();
    const post = (base: string | undefined) =>
      fetch(`${base}${PAYOUT_WEBHOOK_PATH}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-mavapay-signature": signWebhookBody(body, sandbox.webhookSecret),
        },
        body,
      });
    const ack = await post(app.httpUrl);
    expect(ack.status).toBe(200);
    expect(await ack.json()).toEqual({ status: "ok" });

    // No process has workers: the web process recorded the event and delivered it itself, a status card then the
    // notification threaded under it; nothing went through the ingest queue.
    const card = await user.nextMessage({ timeoutMs: 20_000 });
    const notification = await user.nextMessage({ timeoutMs: 20_000 });
    expect(notification.reply_to_message?.message_id).toBe(card.message_id);
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const ingest = new Queue(QUEUE_NAMES.ingest, { connection, prefix: "bull" });
    cleanups.push(
      () => ingest.close(),
      () => connection.quit(),
    );
    expect(await workersHere(ingest)).toBe(0);
    expect((await ingest.getJobCounts("waiting")).waiting).toBe(0);

    // What a web process that died between recording a state and delivering it leaves behind: an overdue outbox.
    await app.store.orders.transition(ORDER_ID, { stage: "payout_sent" });
    await app.store.outbox.record({ orderId: ORDER_ID, stage: "payout_sent" }, { dueAt: Date.now() - 1 });
    await tg.idle();
    expect(user.unconsumed()).toHaveLength(0);

    const workerRedis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    cleanups.push(() => workerRedis.quit());
    const config = loadConfig({
      NODE_ENV: "test",
      PROCESS_ROLE: "worker",
      REDIS_URL: testRedisUrl(),
      BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: tg.apiRoot,
      PAYOUT_API_BASE_URL: sandbox.baseUrl,
      PAYOUT_API_KEY: sandbox.apiKey,
      PAYOUT_WEBHOOK_SECRET: sandbox.webhookSecret,
      HOST: "127.0.0.1",
      PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "silent",
    });
    worker = await createApp({
      config,
      logger: silentLogger(),
      redis: workerRedis,
      payout: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret },
      telegram: { token: tg.token },
      telegramPolicy: { throttle: false },
      now: () => sandbox.now(),
    });
    await worker.start();
    expect(await workersHere(ingest)).toBeGreaterThan(0);

    // The worker's sweep finds it overdue and delivers it: the card edited in place, a notification under it.
    const sent = await user.nextMessage({ timeoutMs: 20_000 });
    expect(sent.reply_to_message?.message_id).toBe(card.message_id);

    // A worker serves health and metrics, not webhooks (those go to the web processes).
    expect((await post(worker.httpUrl)).status).toBe(404);
    expect((await fetch(`${worker.httpUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${worker.metricsUrl}/metrics`)).status).toBe(200);
  });

  it("refuses a split role without a shared Redis, bot and payout API", () => {
    expect(() => loadConfig({ PROCESS_ROLE: "worker" })).toThrow(ConfigError);
    expect(() => loadConfig({ PROCESS_ROLE: "web" })).toThrow(
      /REDIS_URL, BOT_TOKEN, PAYOUT_API_BASE_URL are required when PROCESS_ROLE=web/,
    );
    expect(loadConfig({}).processRole).toBe("all");
  });
});

/**
 * BullMQ workers of this queue on this file's database: BullMQ counts them from CLIENT LIST, which spans the whole
 * server, and other test files run their own workers in other databases at the same time.
 */
async function workersHere(queue: Queue): Promise<number> {
  const db = new URL(testRedisUrl()).pathname.slice(1) || "0";
  return (await queue.getWorkers()).filter((worker) => worker.db === db).length;
}
