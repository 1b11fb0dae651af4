import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import {
  buttons,
  confirmQuote,
  current,
  nigerianRecipient,
  orderIdOf,
  orderOf,
  pressAndEdit,
  quoteCount,
  quoteFor,
} from "./payout-support.ts";

const SIX_MINUTES = 6 * 60_000;

describe("quote lifecycle: refresh, expiry, new quote, cancel, API errors", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("Refresh makes one new quote on the same card and retires the old order silently", async () => {
    const user = stack.tg.user({ id: 7401, first_name: "Chidi" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "6000");
    const first = await orderOf(stack, card);
    const quotes = quoteCount(stack);
    const refreshed = await pressAndEdit(user, card, /Refresh quote/, /Your quote/);
    expect(refreshed.message_id).toBe(card.message_id);
    const second = await orderOf(stack, refreshed);
    expect(second.orderId).not.toBe(first.orderId);
    expect(quoteCount(stack)).toBe(quotes + 1);
    expect(second.quoteMessageId).toBe(card.message_id);
    expect(await stack.app.store.orders.get(first.orderId)).toMatchObject({
      stage: "expired",
      failureReason: "superseded",
    });

    // Long after both quotes' time: the card still shows the newer quote's expiry, never the old one's.
    const { status } = await confirmQuote(user, refreshed);
    await stack.advanceClock(SIX_MINUTES);
    const expired = await user.nextEdit(status, { match: /Quote expired/ });
    expect(buttons(expired)).toEqual(["🔁 New quote"]);
    expect(current(user, card).text).toContain("Confirmed");
  });

  it("an unconfirmed quote expires: the reconciler edits the card and New quote quotes the same again", async () => {
    const user = stack.tg.user({ id: 7402, first_name: "Emeka" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "7,500");
    const first = await orderOf(stack, card);
    await stack.advanceClock(SIX_MINUTES);
    const expired = await user.nextEdit(card, { match: /This quote expired/ });
    expect(buttons(expired)).toEqual(["🔁 New quote"]);
    const quotes = quoteCount(stack);
    const fresh = await pressAndEdit(user, expired, /New quote/, /Your quote/);
    expect(fresh.text).toContain("Recipient gets: ₦7,500.00");
    expect(orderIdOf(fresh)).not.toBe(first.orderId);
    expect(quoteCount(stack)).toBe(quotes + 1);
    const { invoice, status } = await confirmQuote(user, fresh);
    await (await user.press(invoice, /Simulate/)).answer();
    await user.nextEdit(status, { match: /Completed/ });
  });

  it("an expired status card's New quote opens a fresh quote for the same recipient and amount", async () => {
    const user = stack.tg.user({ id: 7403, first_name: "Ifeoma" });
    await nigerianRecipient(user);
    const { status } = await confirmQuote(user, await quoteFor(user, "8000"));
    await stack.advanceClock(SIX_MINUTES);
    const expired = await user.nextEdit(status, { match: /Quote expired/ });
    const press = await user.press(expired, /New quote/);
    await press.answer();
    const card = await user.nextMessage({ match: /Your quote/ });
    expect(card.text).toContain("Recipient gets: ₦8,000.00");
    expect(card.text).toContain("OLADEJI OLAOLU");
    expect(buttons(current(user, expired))).toEqual([]);
    const { status: second } = await confirmQuote(user, card);
    expect(second.text).toContain("Waiting for payment");
  });

  it("Cancel on the quote card drops the quote: nothing charged, and no later 'expired' edit", async () => {
    const user = stack.tg.user({ id: 7404, first_name: "Uche" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "5000");
    const order = await orderOf(stack, card);
    const cancelled = await pressAndEdit(user, card, /Cancel/, /Quote cancelled/);
    expect(buttons(cancelled)).toEqual([]);
    expect((await user.nextMessage({ match: /Cancelled/ })).text).toMatch(
      /Nothing was sent and nothing was charged/,
    );
    expect(await stack.app.store.orders.get(order.orderId)).toMatchObject({
      stage: "cancelled",
      cancelledAt: expect.any(String),
    });
    await stack.advanceClock(SIX_MINUTES);
    await stack.tg.idle({ quietMs: 1_000 });
    expect(current(user, card).text).toContain("Quote cancelled");
  });

  it("a failing quote request gets a calm message and Try again; the retry makes one quote", async () => {
    const user = stack.tg.user({ id: 7405, first_name: "Yetunde" });
    await nigerianRecipient(user);
    const fault = await fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "POST /quote", mode: "500" }),
    });
    expect(fault.ok).toBe(true);
    const quotes = quoteCount(stack);
    await user.send("5000");
    const problem = await user.nextMessage({ match: /payment service had a problem/ });
    expect(buttons(problem)).toEqual(["🔄 Try again", "✏️ Change amount", "❌ Cancel"]);
    expect(quoteCount(stack)).toBe(quotes);
    const card = await pressAndEdit(user, problem, /Try again/, /Your quote/);
    expect(card.text).toContain("Recipient gets: ₦5,000.00");
    expect(quoteCount(stack)).toBe(quotes + 1);
  });

  it("typed text on the quote card gets a hint; a sats amount below the payout minimum is explained", async () => {
    const user = stack.tg.user({ id: 7406, first_name: "Segun" });
    const amount = await nigerianRecipient(user);
    const card = await quoteFor(user, "2000");
    await user.send("ok");
    expect((await user.nextMessage()).text).toMatch(/Tap ✅ Confirm/);
    await pressAndEdit(user, card, /Cancel/, /Quote cancelled/);
    await user.nextMessage({ match: /Cancelled/ });

    const again = await nigerianRecipient(user);
    expect(again.message_id).not.toBe(amount.message_id);
    await pressAndEdit(user, again, /in sats instead/, /How many sats/);
    await user.send("100");
    const tooSmall = await user.nextMessage({ match: /below the minimum payout/ });
    expect(tooSmall.text).toMatch(/How many sats/);
  });
});
