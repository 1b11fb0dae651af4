import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, type NewOrder, type Store } from "#src/store/index.js";
import { freshRedis } from "../../support/redis.ts";

const order: NewOrder = {
  orderId: "ord-1",
  quoteId: "q-1",
  hash: "h-1",
  kind: "payout",
  corridor: "NG",
  chatId: 42,
  userId: 42,
  pay: { amount: 12_000, currency: "BTCSAT" },
  receive: { amount: 1_000_000, currency: "NGNKOBO" },
  fee: { amount: 60, currency: "BTCSAT" },
  recipientLabel: "GTBANK PLC ••7890 · ADA OBI",
  beneficiary: {
    bankAccountNumber: "0123457890",
    bankAccountName: "ADA OBI",
    bankCode: "000013",
    bankName: "GTBANK PLC",
  },
  verificationCode: "🦊🍋",
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
};

describe("order transition from a text already read", () => {
  let redis: Redis;
  let store: Store;
  beforeAll(async () => {
    redis = await freshRedis();
    store = createStore(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
    await store.orders.create(order);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("applies the transition with the read it was given", async () => {
    const read = await store.orders.getWithRaw("ord-1");
    expect(read?.order.stage).toBe("awaiting_payment");
    const result = await store.orders.transition("ord-1", { stage: "payment_received" }, read?.raw);
    expect(result?.changed).toBe(true);
    expect((await store.orders.get("ord-1"))?.stage).toBe("payment_received");
  });

  it("reads again when the order changed after that read, and never moves it back", async () => {
    const stale = await store.orders.getWithRaw("ord-1");
    await store.orders.transition("ord-1", { stage: "completed" });
    const late = await store.orders.transition("ord-1", { stage: "payment_received" }, stale?.raw);
    expect(late?.changed).toBe(false);
    expect(late?.order.stage).toBe("completed");
    expect((await store.orders.get("ord-1"))?.stage).toBe("completed");
  });

  it("keeps what another writer added after that read", async () => {
    const stale = await store.orders.getWithRaw("ord-1");
    await store.orders.annotate("ord-1", { statusMessageId: 77 });
    await store.orders.transition("ord-1", { stage: "payment_received" }, stale?.raw);
    const now = await store.orders.get("ord-1");
    expect(now?.stage).toBe("payment_received");
    expect(now?.statusMessageId).toBe(77);
  });
});
