import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatClock } from "#src/money/index.js";
import { keys } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  buttons,
  current,
  nigerianRecipient,
  orderOf,
  pressAndEdit,
  quoteFor,
  startSend,
  typeAndRead,
} from "./payout-support.ts";

/** Each step of every corridor, reached from /send; returns the screen the user is looking at. */
type Step = (user: UserDriver) => Promise<Message>;

const country = (name: RegExp, expected: RegExp) => async (user: UserDriver) =>
  pressAndEdit(user, await startSend(user), name, expected);

const ngBankPrompt = country(/Nigeria/, /Which bank/);
const ngResults: Step = async (user) => {
  await ngBankPrompt(user);
  return typeAndRead(user, "access", /Banks matching/);
};
const ngAccount: Step = async (user) =>
  pressAndEdit(user, await ngResults(user), "ACCESS BANK", /account number/);
const ngConfirmName: Step = async (user) => {
  await ngAccount(user);
  return typeAndRead(user, "0149200000", /belongs to/);
};
const ngEnquiryFailed: Step = async (user) => {
  await ngAccount(user);
  return typeAndRead(user, "1111111111", /could not confirm/);
};
const keMethods = country(/Kenya/, /How should the money arrive/);
const kePhone: Step = async (user) => pressAndEdit(user, await keMethods(user), /phone/, /phone number/);
const keNetwork: Step = async (user) => {
  await kePhone(user);
  return typeAndRead(user, "0712345678", /Which wallet/);
};
const keName: Step = async (user) => pressAndEdit(user, await keNetwork(user), /M-Pesa/, /name/);
const kePaybill: Step = async (user) => pressAndEdit(user, await keMethods(user), /Paybill/, /paybill/);
const keBillAccount: Step = async (user) => {
  await kePaybill(user);
  return typeAndRead(user, "888880", /account number/);
};
const keTill: Step = async (user) => pressAndEdit(user, await keMethods(user), /Till/, /till number/);
const zaBanks = country(/South Africa/, /Which bank/);
const zaAccount: Step = async (user) => pressAndEdit(user, await zaBanks(user), "ABSA", /account number/);
const zaHolder: Step = async (user) => {
  await zaAccount(user);
  return typeAndRead(user, "123456789", /holder/);
};
const ghPhone = country(/Ghana/, /MTN mobile money number/);
const ghName: Step = async (user) => {
  await ghPhone(user);
  return typeAndRead(user, "0241234567", /name on the MoMo account/);
};

const STEPS: Array<[string, Step]> = [
  ["country", startSend],
  ["NG bank prompt", ngBankPrompt],
  ["NG bank results", ngResults],
  ["NG account number", ngAccount],
  ["NG verified name", ngConfirmName],
  ["NG failed enquiry", ngEnquiryFailed],
  ["NG amount", (user) => nigerianRecipient(user)],
  ["KE method", keMethods],
  ["KE phone", kePhone],
  ["KE network", keNetwork],
  ["KE name", keName],
  ["KE paybill", kePaybill],
  ["KE paybill account", keBillAccount],
  ["KE till", keTill],
  ["ZA bank", zaBanks],
  ["ZA account", zaAccount],
  ["ZA holder", zaHolder],
  ["GH phone", ghPhone],
  ["GH name", ghName],
];

describe("leaving the payout flow at every step", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function expectLeft(user: UserDriver): Promise<void> {
    const reply = await user.nextMessage({ match: /Cancelled/ });
    expect(reply.text).toContain(
      "Cancelled: your payout in progress. Nothing was sent and nothing was charged.",
    );
    expect(buttons(reply)).toContain("💸 Send money");
    // The flow is gone: free text now gets the main menu, not a step's error.
    await user.send("0149200000");
    expect((await user.nextMessage()).text).toMatch(/didn't understand/);
  }

  STEPS.forEach(([name, reach], index) => {
    it(`/cancel at ${name}`, async () => {
      const user = stack.tg.user({ id: 7500 + index, first_name: "Cancel" });
      await reach(user);
      await user.send("/cancel");
      await expectLeft(user);
    });

    it(`❌ at ${name}`, async () => {
      const user = stack.tg.user({ id: 7600 + index, first_name: "Cross" });
      const screen = await reach(user);
      await (await user.press(screen, "❌ Cancel")).answer();
      await expectLeft(user);
      expect(buttons(current(user, screen))).toEqual([]);
    });
  });

  it("/cancel on the quote card", async () => {
    const user = stack.tg.user({ id: 7700, first_name: "Quote" });
    await nigerianRecipient(user);
    await quoteFor(user, "5000");
    await user.send("/cancel");
    await expectLeft(user);
  });

  it("another menu command mid-flow leaves the flow and runs the command", async () => {
    const user = stack.tg.user({ id: 7701, first_name: "Menu" });
    await ngAccount(user);
    await user.send("/send");
    expect((await user.nextMessage({ match: /Where does it go/ })).text).toMatch(/Send money/);
  });
});

describe("a cancelled quote is cancelled, not expired", () => {
  const HOUR = 3_600_000;
  const SIX_MINUTES = 6 * 60_000;
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    // The API's clock far from this host's (local mode's :advance): every time shown must be the API's.
    await stack.advanceClock(3 * 24 * HOUR + 2 * HOUR);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A Nigerian quote dropped with the card's ❌; the order as stored and the time the bot shows for it. */
  async function cancelledQuote(user: UserDriver) {
    await nigerianRecipient(user);
    const card = await quoteFor(user, "5000");
    const { orderId } = await orderOf(stack, card);
    const before = stack.sandbox.now();
    const cancelled = await pressAndEdit(user, card, /Cancel/, /Quote cancelled/);
    const after = stack.sandbox.now();
    await user.nextMessage({ match: /Cancelled:/ });
    const order = await stack.app.store.orders.get(orderId);
    const at = Date.parse(order?.cancelledAt ?? "");
    expect(order).toMatchObject({ stage: "cancelled" });
    expect(order?.failureReason).toBeUndefined();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    return { card, cancelled, orderId, quoteId: order!.quoteId, time: formatClock(at, "en-NG", "NG") };
  }

  it("❌ on the quote card: the card, /history and /status say when it was cancelled, on the API's clock", async () => {
    const user = stack.tg.user({ id: 7800, first_name: "Amina", language_code: "en" });
    const { card, cancelled, orderId, time } = await cancelledQuote(user);
    expect(cancelled.text).toContain(`🚫 Quote cancelled at ${time}. Nothing was charged.`);

    await user.send("/history");
    const page = (await user.nextMessage({ match: "Your orders" })).text ?? "";
    expect(page).toContain(`· 🚫 Cancelled at ${time}`);
    expect(page).not.toContain("expired");

    await user.send("/status");
    const status = await user.nextMessage({ match: orderId });
    expect(status.text).toContain(`🚫 Cancelled at ${time}`);
    expect(status.text).toContain("This quote was cancelled before it was paid, so nothing was charged.");
    expect(status.text).not.toMatch(/expired/i);
    expect(buttons(status)).toEqual(["🔁 New quote", "🔄 Refresh"]);

    // Past the quote's deadline the API calls it EXPIRED: neither the reconciler nor /status makes it so here.
    await stack.advanceClock(SIX_MINUTES);
    await stack.tg.idle({ quietMs: 1_000 });
    await user.send("/status");
    expect((await user.nextMessage({ match: orderId })).text).toContain(`🚫 Cancelled at ${time}`);
    expect(await stack.app.store.orders.get(orderId)).toMatchObject({ stage: "cancelled" });
    expect(current(user, card).text).toContain(`Quote cancelled at ${time}`);
  });

  it("/cancel on the quote card cancels its order the same way", async () => {
    const user = stack.tg.user({ id: 7801, first_name: "Bayo", language_code: "en" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "5000");
    const { orderId } = await orderOf(stack, card);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled:/ });
    const retired = await user.nextEdit(card, { match: /Quote cancelled at/ });
    const order = await stack.app.store.orders.get(orderId);
    expect(order).toMatchObject({ stage: "cancelled" });
    const time = formatClock(Date.parse(order?.cancelledAt ?? ""), "en-NG", "NG");
    expect(retired.text).toContain(`🚫 Quote cancelled at ${time}`);
    await user.send("/history");
    expect((await user.nextMessage({ match: "Your orders" })).text).toContain(`🚫 Cancelled at ${time}`);
  });

  it("a cancelled quote paid after all: the payment reaches its owner's status card, and the order is kept", async () => {
    const user = stack.tg.user({ id: 7802, first_name: "Chinedu", language_code: "en" });
    const { orderId, quoteId } = await cancelledQuote(user);
    const member = `${user.id}:${orderId}`;
    expect(await stack.redis.zscore(keys.ordersRetiring(), member)).not.toBeNull();

    // The API was never told of the cancel: whoever holds the quote's invoice can still pay it before its deadline.
    await stack.payLightning(quoteId);
    const card = await user.nextMessage({ match: `order ${orderId}` });
    expect(card.text).toMatch(/Payment received|Payout sent|Completed/);
    await expect.poll(async () => (await stack.app.store.orders.get(orderId))?.stage).toBe("completed");
    await expect.poll(() => current(user, card).text).toContain("🎉 Completed");
    expect(current(user, card).text).toContain("₦5,000.00 was delivered to");
    // Revived: no longer dropped with the unpaid orders, and kept for a paid order's lifetime.
    expect(await stack.redis.zscore(keys.ordersRetiring(), member)).toBeNull();
    expect(await stack.redis.ttl(keys.order(orderId))).toBeGreaterThan(80 * 24 * 3600);
    await user.send("/history");
    const page = (await user.nextMessage({ match: "Your orders" })).text ?? "";
    expect(page).toContain("🎉 completed");
    expect(page).not.toContain("Cancelled");
  });
});
