import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics } from "#src/metrics.js";
import { RefundRepository } from "#src/store/index.js";
import { freshRedis } from "../../support/redis.ts";

/**
 * The refund gauge (payoutbot_refunds_open{state}) the "refund awaiting approval" alert reads: open refunds counted
 * by state from Redis at scrape time, zeros included, finished refunds not at all.
 */
const NOW = 1_800_000_000_000;

describe("open refunds by state", () => {
  let redis: Redis;
  let refunds: RefundRepository;
  beforeAll(async () => {
    redis = await freshRedis();
    refunds = new RefundRepository(redis);
  });
  afterAll(async () => {
    await redis?.quit();
  });

  const open = (orderId: string, state: "paying" | "awaiting_approval") =>
    refunds.open({
      orderId,
      state,
      userId: 1,
      chatId: 1,
      amountSats: 250_000,
      destinationKind: "invoice",
      destination: "lntbs…",
      invoice: `lntbs-${orderId}`,
      invoiceExpiresAt: NOW + 3_600_000,
      paymentHash: `hash-${orderId}`,
      now: NOW,
    });

  it("counts each open state, with zeros, and leaves finished refunds out", async () => {
    expect(await refunds.countOpen()).toEqual({ awaiting_approval: 0, paying: 0, sent: 0, uncertain: 0 });
    await open("r-1", "awaiting_approval");
    await open("r-2", "awaiting_approval");
    await open("r-3", "paying");
    await open("r-4", "awaiting_approval");
    expect(await refunds.move("r-4", ["awaiting_approval"], "rejected")).toBe("ok");
    expect(await refunds.move("r-3", ["paying"], "uncertain")).toBe("ok");
    expect(await refunds.countOpen()).toEqual({ awaiting_approval: 2, paying: 0, sent: 0, uncertain: 1 });
  });

  it("is what the metric shows at scrape time", async () => {
    const metrics = createMetrics();
    metrics.setRefundSource(() => refunds.countOpen());
    const text = await metrics.registry.metrics();
    expect(text).toContain('payoutbot_refunds_open{state="awaiting_approval"} 2');
    expect(text).toContain('payoutbot_refunds_open{state="uncertain"} 1');
    expect(await refunds.move("r-1", ["awaiting_approval"], "paying")).toBe("ok");
    expect(await metrics.registry.metrics()).toContain('payoutbot_refunds_open{state="awaiting_approval"} 1');
  });
});
