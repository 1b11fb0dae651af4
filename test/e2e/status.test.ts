import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatClock } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { nigerianRecipient, orderOf, pressAndEdit, quoteFor } from "./payout-support.ts";

const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

/** Poll a condition over the sandbox's state (the timeout only bounds a hung test; nothing is timed). */
async function eventually(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function confirmedBuy(stack: Stack, user: UserDriver): Promise<{ order: OrderRecord; card: Message }> {
  await user.send("/buy");
  await user.nextMessage({ match: "Step 1 of 3" });
  await user.send(TESTNET_ADDRESS);
  await (await user.press(await user.nextMessage({ match: "Step 2 of 3" }), /Fast/)).answer();
  await user.nextMessage({ match: "Step 3 of 3" });
  await user.send("30000");
  const quote = await user.nextMessage({ match: "Your bitcoin quote" });
  await (await user.press(quote, "✅ Confirm")).answer();
  const card = await user.nextMessage({ match: "Bitcoin purchase" });
  await stack.tg.idle();
  const order = (await stack.app.store.orders.listForUser(user.id, 0, 1)).orders[0];
  if (!order) throw new Error("no order");
  user.consumeAll();
  return { order, card };
}

describe("/status", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    // No webhooks or reconciler: whatever /status shows, it learnt from the payout API itself.
    await stack.app.events.stop();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("says so when there is no order yet", async () => {
    const user = stack.tg.user({ id: 7600, language_code: "en" });
    await user.send("/status");
    expect((await user.nextMessage()).text).toContain("You have no orders yet");
  });

  it("reads the latest order fresh from the API, applies the transition and updates the status card", async () => {
    const user = stack.tg.user({ id: 7601, language_code: "en" });
    const { order, card } = await confirmedBuy(stack, user);

    await user.send("/status");
    const waiting = await user.nextMessage({ match: "Bitcoin purchase" });
    expect(waiting.text).toContain(`order ${order.orderId}`);
    expect(waiting.text).toContain("Waiting for payment");
    expect(waiting.reply_markup?.inline_keyboard.flat().map((button) => button.text)).toContain("🔄 Refresh");

    // The naira arrives and the bitcoin is broadcast; nobody told the bot.
    await stack.payBankTransfer(order.quoteId, order.pay.amount);
    await eventually(
      () =>
        stack.sandbox.state.transactions.some(
          (tx) => tx.quoteId === order.quoteId && tx.type === "WITHDRAWAL",
        ),
      "the on-chain withdrawal",
    );
    await user.send(`/status ${order.orderId}`);
    const sent = await user.nextMessage({ match: "Bitcoin sent" });
    expect(sent.text).toContain("Confirmations: 0/3");
    const stored = await stack.app.store.orders.get(order.orderId);
    expect(stored).toMatchObject({ stage: "payout_sent", confirmations: 0 });
    expect(sent.text).toContain(`Transaction: ${stored?.txid}`);
    // The order's own status card follows (after "payment received", when the bank transfer's webhook came first).
    expect((await user.nextEdit(card, { match: /Bitcoin sent/ })).text).toContain("Confirmations: 0/3");

    // Refresh edits in place; the store only ever moves forward.
    await stack.mineBlocks(3);
    await (await user.press(sent, "🔄 Refresh")).answer();
    const done = await user.nextEdit(sent);
    expect(done.text).toContain("Completed");
    expect(done.text).toContain("Confirmations: 3/3");
    expect(await stack.app.store.orders.get(order.orderId)).toMatchObject({
      stage: "completed",
      confirmations: 3,
    });
  });

  it("refuses unknown ids and other people's orders alike", async () => {
    const owner = stack.tg.user({ id: 7602, language_code: "en" });
    const stranger = stack.tg.user({ id: 7603, language_code: "en" });
    const { order } = await confirmedBuy(stack, owner);

    await stranger.send(`/status ${order.orderId}`);
    const foreign = await stranger.nextMessage();
    expect(foreign.text).toBe(
      `I could not find order ${order.orderId} among your orders. Check the number, or send /status alone for your latest order.`,
    );
    expect(foreign.text).not.toContain("Bitcoin purchase");

    await owner.send("/status 00000-0000");
    expect((await owner.nextMessage()).text).toContain("I could not find order 00000-0000 among your orders");
    await owner.send("/status <script>");
    expect((await owner.nextMessage()).text).toContain("I could not find order <script> among your orders");

    await owner.send(`/status #${order.orderId}`);
    expect((await owner.nextMessage({ match: "Bitcoin purchase" })).text).toContain(order.orderId);
  });

  it("shows the last known state when the payout API cannot be reached", async () => {
    const user = stack.tg.user({ id: 7604, language_code: "en" });
    const { order } = await confirmedBuy(stack, user);
    const fault = await fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "GET /transaction", mode: "500", times: 3 }),
    });
    expect(fault.ok).toBe(true);
    await user.send("/status");
    const reply = await user.nextMessage({ match: "Bitcoin purchase" });
    expect(reply.text).toContain(order.orderId);
    expect(reply.text).toContain("Waiting for payment");
    expect(reply.text).toContain(
      "I could not reach the payment service just now, so this is the last known state.",
    );
  });

  it("a cancelled quote reads 'Cancelled at' its cancel time, and stays so once the API calls it expired", async () => {
    const user = stack.tg.user({ id: 7605, first_name: "Wanjiru", language_code: "en" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "5000");
    const { orderId } = await orderOf(stack, card);
    await pressAndEdit(user, card, /Cancel/, /Quote cancelled/);
    const cancelled = await stack.app.store.orders.get(orderId);
    const time = formatClock(Date.parse(cancelled?.cancelledAt ?? ""), "en-NG", "NG");

    await user.send("/status");
    const first = await user.nextMessage({ match: orderId });
    expect(first.text).toContain(`🚫 Cancelled at ${time}`);
    expect(first.text).not.toMatch(/expired/i);

    // Past the quote's deadline the API answers EXPIRED; /status applies what the API proves, and that is not it.
    await stack.advanceClock(6 * 60_000);
    await user.send("/status");
    const later = await user.nextMessage({ match: orderId });
    expect(later.text).toContain(`🚫 Cancelled at ${time}`);
    expect(later.text).not.toMatch(/expired/i);
    expect(await stack.app.store.orders.get(orderId)).toMatchObject({ stage: "cancelled" });
  });
});
