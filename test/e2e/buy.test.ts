import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const LOCALE = "en-NG"; // what English speakers get (intlLocale("en"))

/** Drive /buy to the quote card: address → speed → amount. */
async function quoteFor(
  user: UserDriver,
  options: { speed?: RegExp; amount?: string } = {},
): Promise<Message> {
  await user.send("/buy");
  await user.nextMessage({ match: "Step 1 of 3" });
  await user.send(TESTNET_ADDRESS);
  const speed = await user.nextMessage({ match: "Step 2 of 3" });
  await (await user.press(speed, options.speed ?? /Fast/)).answer();
  await user.nextMessage({ match: "Step 3 of 3" });
  await user.send(options.amount ?? "50,000");
  return user.nextMessage({ match: "Your bitcoin quote" });
}

async function latestOrder(stack: Stack, userId: number): Promise<OrderRecord> {
  const { orders } = await stack.app.store.orders.listForUser(userId, 0, 1);
  const order = orders[0];
  if (!order) throw new Error(`user ${userId} has no order`);
  return order;
}

const buttonTexts = (message: Message) =>
  message.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];

describe("buy bitcoin on-chain", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("quotes, confirms, and follows the order through 3 confirmations to done", async () => {
    const user = stack.tg.user({ id: 7201, first_name: "Ada", language_code: "en" });
    await user.send("/buy");
    const addressPrompt = await user.nextMessage({ match: "Step 1 of 3" });
    expect(addressPrompt.text).toContain("Bitcoin signet");
    expect(addressPrompt.text).toContain("tb1…, m…, n… or 2…");
    await user.send(TESTNET_ADDRESS);
    expect((await user.nextMessage({ match: "Receiving address" })).text).toContain(TESTNET_ADDRESS);

    const speedPrompt = await user.nextMessage({ match: "Step 2 of 3" });
    expect(buttonTexts(speedPrompt)).toEqual([
      "🐢 Slow · about 60+ min",
      "🚶 Medium · about 30–60 min",
      "⚡ Fast · about 10–30 min",
      "❌ Cancel",
    ]);
    await (await user.press(speedPrompt, /Fast/)).answer();
    const settledSpeed = await user.nextEdit(speedPrompt);
    expect(settledSpeed.text).toBe("Delivery speed: ⚡ Fast · about 10–30 min");
    expect(settledSpeed.reply_markup).toBeUndefined();

    const amountPrompt = await user.nextMessage({ match: "Step 3 of 3" });
    expect(amountPrompt.text).toContain("The minimum purchase is 6,000 sats (about ₦9,000.00 before fees)");
    await user.send("50,000");
    const quoteCard = await user.nextMessage({ match: "Your bitcoin quote" });
    await stack.tg.idle();

    // The order record exists from the moment the quote is shown, with the quote card remembered.
    const order = await latestOrder(stack, user.id);
    const quote = stack.sandbox.state.quotes.get(order.quoteId);
    expect(quote).toMatchObject({
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
      speed: "fast",
      beneficiary: { kind: "onchain", onChainAddress: TESTNET_ADDRESS },
    });
    expect(order).toMatchObject({
      kind: "buy",
      corridor: "NG",
      stage: "awaiting_payment",
      speed: "fast",
      quoteMessageId: quoteCard.message_id,
      pay: { amount: quote?.total, currency: "NGNKOBO" },
      receive: { amount: quote?.amountInTarget, currency: "BTCSAT" },
      payIn: { accountName: "Mava Digital Solutions Limited" },
    });
    expect(order.confirmedAt).toBeUndefined();
    expect(order.pay.amount).toBe(5_000_000); // ₦50,000.00 typed, fees included

    const text = quoteCard.text ?? "";
    expect(text).toContain(
      `Transfer exactly: ${formatMoney(order.pay.amount, "NGNKOBO", LOCALE)} (fees included)`,
    );
    expect(text).toContain(`You receive: ${formatMoney(order.receive.amount, "BTCSAT", LOCALE)}`);
    expect(text).toContain(`Bank: ${order.payIn?.bankName}`);
    expect(text).toContain("Account name: Mava Digital Solutions Limited");
    expect(text).toContain(`code ${order.verificationCode}`);
    expect(text).toMatch(/Valid until \d{2}:\d{2} WAT \(about 10 min\)/);
    // The account number is copyable: a <code> entity and a copy button.
    const accountNumber = order.payIn?.accountNumber ?? "";
    const codes = (quoteCard.entities ?? [])
      .filter((entity) => entity.type === "code")
      .map((entity) => text.slice(entity.offset, entity.offset + entity.length));
    expect(codes).toContain(accountNumber);
    const copy = quoteCard.reply_markup?.inline_keyboard.flat().find((button) => "copy_text" in button);
    expect(copy && "copy_text" in copy ? copy.copy_text.text : undefined).toBe(accountNumber);

    const confirm = await user.press(quoteCard, "✅ Confirm");
    expect((await confirm.answer()).text).toBe("Confirmed ✅");
    const card = await user.nextMessage({ match: "Bitcoin purchase" });
    expect(card.text).toContain("Waiting for payment");
    expect(card.text).toContain(`You pay: ${formatMoney(order.pay.amount, "NGNKOBO", LOCALE)}`);
    expect(buttonTexts(card)).toContain("🧪 Simulate payment");
    await stack.tg.idle();
    const confirmed = await stack.app.store.orders.get(order.orderId);
    expect(confirmed?.statusMessageId).toBe(card.message_id);
    expect(confirmed?.confirmedAt).toBeDefined();
    // The quote card keeps its copy buttons but can no longer be confirmed.
    const settledQuote = await user.nextEdit(quoteCard);
    expect(buttonTexts(settledQuote)).not.toContain("✅ Confirm");
    expect(settledQuote.text).toContain("Confirmed. Make the transfer now");

    // Sandbox: simulate the naira transfer of exactly the quoted amount.
    const simulate = await user.press(card, "🧪 Simulate payment");
    expect((await simulate.answer()).text).toBe("Simulating the bank transfer…");
    const sent = await user.nextEdit(card, { match: /Bitcoin sent[\s\S]*Confirmations: 0\/3/ });
    const txid = (await stack.app.store.orders.get(order.orderId))?.txid;
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.text).toContain(`Transaction: ${txid}`);
    expect(quote?.paidAt).toBeDefined();

    // Fast pace: one confirmation per 10 minutes of sandbox time; the reconciler picks up each one.
    await stack.advanceClock(10 * 60_000);
    await user.nextEdit(card, { match: /Confirmations: 1\/3/ });
    await stack.mineBlocks(1);
    await stack.advanceClock(61_000);
    await user.nextEdit(card, { match: /Confirmations: 2\/3/ });
    await stack.mineBlocks(1);
    const done = await user.nextEdit(card, { match: /Completed/ });
    expect(done.text).toContain("Confirmations: 3/3");
    expect(done.text).toContain(
      `${formatMoney(order.receive.amount, "BTCSAT", LOCALE)} arrived on-chain with 3 confirmations`,
    );
    expect(done.reply_markup?.inline_keyboard).toEqual([
      [{ text: "🧾 Receipt", callback_data: `order:receipt:${order.orderId}` }],
    ]);
    expect(await stack.app.store.orders.get(order.orderId)).toMatchObject({
      stage: "completed",
      confirmations: 3,
      txid,
    });
    await user.nextMessage({ match: "confirmed on-chain" });
  });

  it("a double-tapped Confirm gives one status message and one quote", async () => {
    const user = stack.tg.user({ id: 7202, language_code: "en" });
    const quotesBefore = stack.sandbox.state.quotes.size;
    const quoteCard = await quoteFor(user);
    const first = await user.press(quoteCard, "✅ Confirm");
    const second = await user.press(quoteCard, "✅ Confirm");
    const answers = [(await first.answer()).text, (await second.answer()).text];
    expect(answers).toEqual(["Confirmed ✅", "This quote is already confirmed."]);
    await stack.tg.idle();
    const cards = user.messages().filter((message) => message.text?.includes("Bitcoin purchase"));
    expect(cards).toHaveLength(1);
    expect(stack.sandbox.state.quotes.size - quotesBefore).toBe(1);
    const { orders, total } = await stack.app.store.orders.listForUser(user.id);
    expect(total).toBe(1);
    expect(orders[0]?.statusMessageId).toBe(cards[0]?.message_id);
  });

  it("keeps everything when the API fails, and a double-tapped “Try again” makes one quote", async () => {
    const user = stack.tg.user({ id: 7203, language_code: "en" });
    const response = await fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "POST /quote", mode: "500", times: 1 }),
    });
    expect(response.ok).toBe(true);
    const quotesBefore = stack.sandbox.state.quotes.size;

    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send(TESTNET_ADDRESS);
    await (await user.press(await user.nextMessage({ match: "Step 2 of 3" }), /Slow/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    await user.send("20000");
    const failure = await user.nextMessage({ match: "payment service had a problem" });
    expect(failure.text).toContain("Your address, speed and amount are kept");
    expect(stack.sandbox.state.quotes.size).toBe(quotesBefore);

    const first = await user.press(failure, "🔄 Try again");
    const second = await user.press(failure, "🔄 Try again");
    await first.answer();
    await second.answer();
    const quoteCard = await user.nextMessage({ match: "Your bitcoin quote" });
    expect(quoteCard.text).toContain("Delivery: 🐢 Slow · about 60+ min");
    expect(quoteCard.text).toContain("Transfer exactly: ₦20,000.00");
    await stack.tg.idle();
    expect(stack.sandbox.state.quotes.size - quotesBefore).toBe(1);
    expect(user.messages().filter((message) => message.text?.includes("Your bitcoin quote"))).toHaveLength(1);
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });
  });

  it("an expired quote offers “New quote” with the same address, speed and sats", async () => {
    const user = stack.tg.user({ id: 7204, language_code: "en" });
    const quoteCard = await quoteFor(user, { speed: /Medium/, amount: "30000 sats" });
    const expired = await latestOrder(stack, user.id);
    expect(expired.receive.amount).toBe(30_000);
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });

    // Bank-transfer quotes live 10 minutes; the reconciler turns the card into "expired".
    await stack.advanceClock(11 * 60_000);
    const expiredCard = await user.nextEdit(quoteCard, { match: "This quote expired" });
    await (await user.press(expiredCard, "🔁 New quote")).answer();
    const fresh = await user.nextMessage({ match: "Your bitcoin quote" });
    expect(fresh.text).toContain("You receive: 30,000 sats");
    expect(fresh.text).toContain("Delivery: 🚶 Medium · about 30–60 min");
    const order = await latestOrder(stack, user.id);
    expect(order.orderId).not.toBe(expired.orderId);
    expect(stack.sandbox.state.quotes.get(order.quoteId)).toMatchObject({
      paymentCurrency: "BTCSAT",
      amountInTarget: 30_000,
      speed: "medium",
    });
    await (await user.press(fresh, "✅ Confirm")).answer();
    await user.nextMessage({ match: "Bitcoin purchase" });
  });
});
