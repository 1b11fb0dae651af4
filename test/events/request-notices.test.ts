import { Api } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RetryLaterError } from "#src/events/queue.js";
import { createRequestNotices } from "#src/events/request-notices.js";
import { createTranslator } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";
import { createStore, keys, type Store } from "#src/store/index.js";
import { freshRedis } from "../support/redis.ts";
import { ngnOrder } from "../support/store-fixtures.ts";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

/**
 * A money request's requester is told of the payer's payment and payout by two jobs, one per stage. A payout that
 * lands right after its payment runs both at once (two workers, or one worker's concurrent jobs): real Redis, the
 * Telegram emulator over HTTP.
 */
describe("request notices", () => {
  let redis: Redis;
  let store: Store;
  let tg: TelegramEmulator;
  let tell: ReturnType<typeof createRequestNotices>;

  beforeAll(async () => {
    redis = await freshRedis();
    store = createStore(redis);
    tg = await startTelegramEmulator();
    const translator = await createTranslator({ logger: silentLogger() });
    tell = createRequestNotices({
      telegram: new Api(tg.token, { apiRoot: tg.apiRoot }),
      store,
      translator,
      languageOf: async () => "en",
      logger: silentLogger(),
      now: () => Date.now(),
    });
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await tg.close();
    await redis.quit();
  });

  async function paidRequest(requesterId: number): Promise<{ orderId: string; token: string }> {
    const request = await store.requests.create(
      {
        userId: requesterId,
        chatId: requesterId,
        corridor: "NG",
        beneficiary: { bankAccountNumber: "0123457890", bankAccountName: "ADA OBI", bankCode: "000013" },
        label: "GTBANK PLC ••7890 · ADA OBI",
        name: "ADA OBI",
        amount: { amount: 1_000_000, currency: "NGNKOBO" },
      },
      Date.now(),
      3_600_000,
    );
    const orderId = `ord-${requesterId}`;
    await store.orders.create({ ...ngnOrder(orderId), requestId: request.token });
    return { orderId, token: request.token };
  }

  /** Runs a notice job as the queue does: a RetryLaterError puts it back, to run again shortly. */
  async function runJob(orderId: string, stage: "payment_received" | "completed"): Promise<number> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await tell(orderId, stage);
        return attempt;
      } catch (error) {
        if (!(error instanceof RetryLaterError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  it("the payment's and the payout's jobs at once: each notice reaches the requester once, in order", async () => {
    for (const requesterId of [7501, 7502, 7503, 7504, 7505]) {
      const { orderId, token } = await paidRequest(requesterId);
      const requester = tg.user({ id: requesterId, first_name: "Amina", language_code: "en", started: true });
      const attempts = await Promise.all([runJob(orderId, "payment_received"), runJob(orderId, "completed")]);
      await tg.idle({ quietMs: 100 });
      const texts = requester
        .unconsumed()
        .flatMap((event) => (event.kind === "message" ? [event.message.text ?? ""] : []));
      expect(texts).toHaveLength(2);
      expect(texts[0]).toMatch(/^💌 Your request for .* was paid/);
      expect(texts[1]).toMatch(/^✅ .* from your request has arrived/);
      // One told at its first try; the other found it telling and ran again, as often as it took, after it.
      expect(Math.min(...attempts)).toBe(1);
      expect(Math.max(...attempts)).toBeGreaterThan(1);
      expect(await redis.exists(keys.moneyRequestTelling(token))).toBe(0);
    }
  });

  it("a job that finds the request being told waits its turn; the hold is given back when the send fails", async () => {
    const { orderId, token } = await paidRequest(7510);
    tg.user({ id: 7510, first_name: "Amina", language_code: "en", started: true });
    const held = await store.requests.holdTelling(token);
    expect(held).toBeDefined();
    await expect(tell(orderId, "payment_received")).rejects.toBeInstanceOf(RetryLaterError);
    await held?.release();
    // Telegram answers 500: the job fails (the queue retries it) and gives the request back for that retry.
    tg.faults.add({ method: "sendMessage", status: 500 });
    await expect(tell(orderId, "payment_received")).rejects.toThrow(/500/);
    expect(await redis.exists(keys.moneyRequestTelling(token))).toBe(0);
    expect(await store.requests.wasTold(token, "payment_received")).toBe(false);
    expect(await tell(orderId, "payment_received")).toBe("told");
    expect(await store.requests.wasTold(token, "payment_received")).toBe(true);
  });
});
