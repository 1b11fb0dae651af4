import { autoRetry } from "@grammyjs/auto-retry";
import { Api } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { burstPacer } from "#src/bot/telegram-limits.js";
import { setSendingMark } from "#src/events/index.js";
import { chatTexts, eventually, type Harness, type PlacedOrder, settled, startHarness } from "./harness.ts";

/**
 * 1,000 webhook events in one burst (500 NGN payouts × payment.received + payment.sent), shared by two pipeline
 * "processes" with their own Telegram clients, against an emulator that enforces Telegram's flood limits.
 * Counted at the emulator: every chat gets its card and exactly two notifications, in order.
 */
const ORDERS = 500;
const FIRST_USER = 50_000;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ rateLimits: true, pipeline: { followUpMs: 600_000, deliveryConcurrency: 24 } });
});
afterAll(async () => {
  await h?.close();
});

async function inBatches<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let index = 0; index < items.length; index += size) {
    results.push(...(await Promise.all(items.slice(index, index + size).map(run))));
  }
  return results;
}

describe("a burst of 1,000 events", () => {
  it("is delivered with none lost and none duplicated", { timeout: 300_000 }, async () => {
    const placed: PlacedOrder[] = await inBatches(
      Array.from({ length: ORDERS }, (_, index) => FIRST_USER + index),
      20,
      (userId) => h.placeOrder({ corridor: "NG", userId, card: false, delivered: true }),
    );

    const first = h.newPipeline();
    const secondApi = new Api(h.tg.token, { apiRoot: h.tg.apiRoot });
    secondApi.config.use(setSendingMark);
    secondApi.config.use(burstPacer());
    secondApi.config.use(autoRetry());
    const second = h.newPipeline({ telegram: secondApi });
    await Promise.all([first.start(), second.start()]);

    await inBatches(placed, 20, (order) => h.pay(order));
    await eventually(
      () => h.sandbox.webhookLog().filter((record) => record.status === "delivered").length >= ORDERS * 2,
      "the sandbox to deliver 1,000 webhooks",
      60_000,
    );
    await eventually(
      async () => {
        const orders = await h.store.orders.getMany(placed.map((p) => p.order.orderId));
        return orders.filter((order) => order.stage === "completed").length === ORDERS;
      },
      "every order completed",
      120_000,
    );
    await settled(
      h,
      placed.map((p) => p.order.orderId),
      240_000,
    );

    const wrong: string[] = [];
    for (const { user, order } of placed) {
      const texts = chatTexts(user);
      const ok =
        texts.length === 3 &&
        /Completed/.test(texts[0] ?? "") &&
        /Payment received/.test(texts[1] ?? "") &&
        /delivered to/.test(texts[2] ?? "");
      if (!ok) wrong.push(`${order.orderId}: ${JSON.stringify(texts)}`);
    }
    expect(wrong).toEqual([]);
    const sends = h.tg.calls({ method: "sendMessage" }).filter((call) => call.ok);
    expect(sends).toHaveLength(ORDERS * 3);
    expect(await first.deadLetters.list()).toEqual([]);
    const webhookEvents = await h.metrics.webhookEvents.get();
    const accepted = webhookEvents.values
      .filter((value) => value.labels.outcome === "accepted")
      .reduce((sum, value) => sum + value.value, 0);
    expect(accepted).toBe(ORDERS * 2);
  });
});
