import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

/**
 * On-chain progress as the user sees it: no webhook carries confirmation counts, so the reconciler polls a pending
 * withdrawal every few seconds. Blocks are mined one at a time through the sandbox's control route (what a miner
 * would do) and the status card must step through 1/3, 2/3, 3/3 in order, each soon after its block.
 */
const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
/** What the test allows per block: the schedule aims at ~3 s; a loaded machine gets a generous margin. */
const GENEROUS_BOUND_MS = 20_000;

async function buyAndPay(stack: Stack, user: UserDriver): Promise<{ card: Message; order: OrderRecord }> {
  await user.send("/buy");
  await user.nextMessage({ match: "Step 1 of 3" });
  await user.send(TESTNET_ADDRESS);
  const speed = await user.nextMessage({ match: "Step 2 of 3" });
  await (await user.press(speed, /Fast/)).answer();
  await user.nextMessage({ match: "Step 3 of 3" });
  await user.send("50,000");
  const quote = await user.nextMessage({ match: "Your bitcoin quote" });
  await (await user.press(quote, "✅ Confirm")).answer();
  const card = await user.nextMessage({ match: "Bitcoin purchase" });
  const { orders } = await stack.app.store.orders.listForUser(user.id, 0, 1);
  const order = orders[0];
  if (!order) throw new Error("no order");
  await stack.payBankTransfer(order.quoteId, order.pay.amount);
  await user.nextEdit(card, { match: /Confirmations: 0\/3/ });
  return { card, order };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The confirmation count on every edit of the card, in the order the chat received them (repeats collapsed). */
function countsSeen(user: UserDriver, card: Message): number[] {
  const counts: number[] = [];
  for (const event of user.events()) {
    if (event.kind !== "edit" || event.message.message_id !== card.message_id) continue;
    const found = /Confirmations: (\d)\/3/.exec(event.message.text ?? "");
    const count = found ? Number(found[1]) : undefined;
    if (count !== undefined && counts.at(-1) !== count) counts.push(count);
  }
  return counts;
}

describe("on-chain progress", () => {
  let stack: Stack;
  const mine = async (count: number) => {
    const response = await fetch(`${stack.sandbox.origin}/_sandbox/blocks/mine`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ count }),
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    // The production tick period (7 s, a tick keeps polling pending withdrawals every 2 s), not the quick test tick.
    stack = await startStack({ reconcileEveryMs: 7_000 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("shows 1/3, 2/3 and 3/3 in order, each within seconds of its block", async () => {
    const user = stack.tg.user({ id: 7601, first_name: "Chi", language_code: "en" });
    const { card } = await buyAndPay(stack, user);

    const latencies: number[] = [];
    for (const block of [1, 2, 3]) {
      const minedAt = Date.now();
      await mine(1);
      const edit = await user.nextEdit(card, { match: new RegExp(`Confirmations: ${block}/3`) });
      latencies.push(Date.now() - minedAt);
      if (block === 3) expect(edit.text).toContain("Completed");
    }
    console.info(`on-chain progress: card edit after each block (ms): ${latencies.join(", ")}`);
    for (const latency of latencies) expect(latency).toBeLessThan(GENEROUS_BOUND_MS);
    expect(countsSeen(user, card)).toEqual([0, 1, 2, 3]);
  });

  it("still shows every count in order when two blocks arrive between two checks", async () => {
    const user = stack.tg.user({ id: 7602, first_name: "Efua", language_code: "en" });
    const { card, order } = await buyAndPay(stack, user);
    await mine(2);
    await user.nextEdit(card, { match: /Confirmations: 2\/3/ });
    await mine(1);
    await user.nextEdit(card, { match: /Completed[\s\S]*Confirmations: 3\/3/ });
    expect(countsSeen(user, card)).toEqual([0, 1, 2, 3]);
    // The order left the fast lane (and the open set) when it completed.
    expect(await stack.redis.zscore("orders:open", order.orderId)).toBeNull();
  });
  it("a late delivery still steps the card through every count it missed, in order", async () => {
    const user = stack.tg.user({ id: 7604, first_name: "Zanele", language_code: "en" });
    const { card, order } = await buyAndPay(stack, user);
    await stack.tg.idle();
    // Another worker holds the order's chat: the counts pile up in the outbox meanwhile.
    const claim = await stack.app.store.deliveryClaims.claim(order.orderId, undefined);
    expect(claim).toBeDefined();
    try {
      for (const count of [1, 2]) {
        await mine(1);
        await waitFor(async () => (await stack.app.store.orders.get(order.orderId))?.confirmations === count);
      }
      await mine(1);
      await waitFor(async () => (await stack.app.store.orders.get(order.orderId))?.stage === "completed");
    } finally {
      await claim?.lock.release();
    }
    await user.nextEdit(card, { match: /Completed[\s\S]*Confirmations: 3\/3/ });
    expect(countsSeen(user, card)).toEqual([0, 1, 2, 3]);
  });
});

describe("a block mined in local mode", () => {
  let stack: Stack;
  beforeAll(async () => {
    // The tick is far away: only the explicit re-check (what the terminal's :mine calls) can show the block.
    stack = await startStack({ reconcileEveryMs: 10 * 60_000 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("is shown at once when the app is asked to re-check pending on-chain orders", async () => {
    const user = stack.tg.user({ id: 7603, first_name: "Kofi", language_code: "en" });
    const { card, order } = await buyAndPay(stack, user);
    await stack.tg.idle();
    await stack.mineBlocks(1);
    expect(await stack.app.events.recheckPendingOnchain()).toBe(1);
    await user.nextEdit(card, { match: /Confirmations: 1\/3/ });
    // The count the re-check found is stored with the order.
    expect((await stack.app.store.orders.get(order.orderId))?.confirmations).toBe(1);
  });
});
