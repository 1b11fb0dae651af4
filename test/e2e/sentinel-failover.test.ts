import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SentinelSet, startSentinelSet } from "../support/sentinel.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { confirmQuote, nigerianRecipient, orderOf, quoteCount, quoteFor } from "./payout-support.ts";

/**
 * REDIS_URL naming a Sentinel set: the bot, its sessions and conversations, and BullMQ's queues all follow a
 * failover. The master is SIGKILLed in the middle of a payout; the journey goes on against the promoted replica.
 */
describe("Redis Sentinel failover", () => {
  let set: SentinelSet;
  let stack: Stack;
  beforeAll(async () => {
    set = await startSentinelSet();
    stack = await startStack({ redisUrl: set.url });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await set?.stop();
  });

  it("keeps serving a payout after the master is killed and the replica promoted", async () => {
    const ada = stack.tg.user({ id: 9301, first_name: "Ada" });
    await nigerianRecipient(ada);
    const card = await quoteFor(ada, "10,000");
    const order = await orderOf(stack, card);
    // Replication is asynchronous: make sure the replica holds what was written so far, as a healthy set would
    // within milliseconds.
    expect(await stack.redis.wait(1, 5_000)).toBe(1);

    set.killMaster();
    await expect
      .poll(() => set.currentMasterPort(), { timeout: 30_000, interval: 250 })
      .toBe(set.replicaPort);

    // The conversation (stored before the failover) resumes on the new master: Confirm → invoice + status card.
    const { invoice, status } = await confirmQuote(ada, card);
    expect(quoteCount(stack)).toBe(1);

    // BullMQ's connections followed too: the payment webhook goes through the queues to the status card.
    await ada.press(invoice, /Simulate/).then((press) => press.answer());
    await ada.nextEdit(status, { match: /Completed/, timeoutMs: 20_000 });
    expect((await stack.app.store.orders.get(order.orderId))?.stage).toBe("completed");

    // Every write since went to the promoted replica.
    const info = await stack.redis.info("server");
    expect(info).toContain(`tcp_port:${set.replicaPort}`);
  }, 90_000);
});
