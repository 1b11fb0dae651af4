import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LANGUAGES } from "#src/i18n/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const MAINNET_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const CANCELLED = "Cancelled: your bitcoin purchase in progress. Nothing was sent and nothing was charged.";

async function toSpeed(user: UserDriver): Promise<Message> {
  await user.send("/buy");
  await user.nextMessage({ match: "Step 1 of 3" });
  await user.send(TESTNET_ADDRESS);
  const prompt = await user.nextMessage({ match: "Step 2 of 3" });
  user.consumeAll(); // the steps before are covered elsewhere; only what follows matters here
  return prompt;
}

async function toAmount(user: UserDriver): Promise<Message> {
  const speed = await toSpeed(user);
  await (await user.press(speed, /Medium/)).answer();
  const prompt = await user.nextMessage({ match: "Step 3 of 3" });
  user.consumeAll();
  return prompt;
}

/** After leaving the flow, text is no longer taken as flow input: the bot answers with the menu. */
async function expectNoFlow(user: UserDriver): Promise<void> {
  await user.send("50000");
  expect((await user.nextMessage()).text).toMatch(/didn't understand/);
}

describe("buy bitcoin: what users type", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("ends every sentence about address prefixes cleanly, in all ten languages (no “2…” then a lone “.”)", async () => {
    for (const [index, { code }] of LANGUAGES.entries()) {
      const user = stack.tg.user({ id: 7350 + index, language_code: code });
      await user.send("/buy");
      const prompt = await user.nextMessage();
      await user.send("hello there");
      const malformed = await user.nextMessage();
      await user.send(MAINNET_ADDRESS);
      const wrongNetwork = await user.nextMessage();
      for (const message of [prompt, malformed, wrongNetwork]) {
        expect(message.text, code).toContain("2…");
        expect(message.text, code).not.toMatch(/…\s*\./);
      }
      await user.send("/cancel");
      await user.nextMessage();
    }
  });

  it("refuses malformed addresses, wrong-network addresses and Lightning, then takes a good one", async () => {
    const user = stack.tg.user({ id: 7301, language_code: "en" });
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });

    await user.send("hello there");
    expect((await user.nextMessage()).text).toContain("That is not a valid bitcoin address");
    // One character off: the checksum catches the typo.
    await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsy");
    expect((await user.nextMessage()).text).toContain("That is not a valid bitcoin address");

    await user.send(MAINNET_ADDRESS);
    const wrongNetwork = await user.nextMessage();
    expect(wrongNetwork.text).toBe(
      "That is a Bitcoin mainnet address, but this service sends bitcoin on Bitcoin signet, a test network. " +
        "Sending there would lose the coins, so please send an address that starts with tb1…, m…, n… or 2…",
    );
    await user.send("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2");
    expect((await user.nextMessage()).text).toMatch(/^That is a Bitcoin mainnet address/);

    await user.send("lntbs60160n1p5dmrdppp5qqqsyqcyq5rqwzqfqypq");
    expect((await user.nextMessage()).text).toMatch(/looks like a Lightning invoice or address/);

    await user.sendRaw({
      sticker: {
        file_id: "s",
        file_unique_id: "s",
        type: "regular",
        width: 1,
        height: 1,
        is_animated: false,
        is_video: false,
      },
    });
    expect((await user.nextMessage()).text).toContain("Please type or paste the bitcoin address as text");

    // A BIP21 URI from a wallet's "copy" is unwrapped.
    await user.send(`bitcoin:${TESTNET_ADDRESS}?amount=0.0001`);
    expect((await user.nextMessage({ match: "Receiving address" })).text).toContain(TESTNET_ADDRESS);
    await user.nextMessage({ match: "Step 2 of 3" });
    expect(await stack.app.store.orders.listForUser(user.id)).toMatchObject({ total: 0 });
    await user.send("/cancel");
    expect((await user.nextMessage()).text).toBe(CANCELLED);
  });

  it("explains amounts it cannot use and the 6,000 sats minimum, in naira and in sats", async () => {
    const user = stack.tg.user({ id: 7302, language_code: "en" });
    const prompt = await toAmount(user);
    expect(prompt.text).toContain("How much naira do you want to spend?");

    await user.send("lots");
    expect((await user.nextMessage()).text).toContain("I could not read that as an amount");
    await user.send("1,000.505");
    expect((await user.nextMessage()).text).toContain("at most 2 decimal places");
    await user.send("$50");
    expect((await user.nextMessage()).text).toContain("not USD");
    await user.send("-5000");
    expect((await user.nextMessage()).text).toContain("cannot be negative");
    await user.send("₦500");
    expect((await user.nextMessage()).text).toBe(
      "₦500.00 would buy about 333 sats, below the minimum of 6,000 sats. Please type a larger amount (about ₦9,000.00 before fees).",
    );

    // Switch to sats: the prompt is edited in place.
    await (await user.press(prompt, "Enter sats instead")).answer();
    const satsPrompt = await user.nextEdit(prompt);
    expect(satsPrompt.text).toContain("How many sats do you want to receive?");
    await user.send("5999");
    expect((await user.nextMessage()).text).toBe(
      "The minimum purchase is 6,000 sats. Please type a larger amount.",
    );
    await user.send("1.5");
    expect((await user.nextMessage()).text).toContain("Sats are whole numbers");

    // Back to naira: ₦9,000 is about 6,000 sats at spot, but fees and the network fee take it below the minimum.
    await (await user.press(satsPrompt, "Enter naira instead")).answer();
    await user.nextEdit(prompt);
    const quotesBefore = stack.sandbox.state.quotes.size;
    await user.send("9000");
    expect((await user.nextMessage()).text).toBe(
      "The payment service says this amount is below the minimum on-chain purchase of 6,000 sats after fees. Please type a larger amount.",
    );
    expect((await user.nextMessage({ match: "Step 3 of 3" })).text).toContain("How much naira");
    expect(stack.sandbox.state.quotes.size).toBe(quotesBefore);
    expect((await stack.app.store.orders.listForUser(user.id)).total).toBe(0);

    await user.send("20000");
    expect((await user.nextMessage({ match: "Your bitcoin quote" })).text).toContain(
      "Transfer exactly: ₦20,000.00",
    );
    await user.send("/cancel");
    expect((await user.nextMessage()).text).toBe(CANCELLED);
  });

  it("/cancel leaves the flow at the address step", async () => {
    const user = stack.tg.user({ id: 7303, language_code: "en" });
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send("/cancel");
    expect((await user.nextMessage()).text).toBe(CANCELLED);
    await expectNoFlow(user);
  });

  it("❌ leaves the flow at the speed step and removes the buttons", async () => {
    const user = stack.tg.user({ id: 7304, language_code: "en" });
    const speed = await toSpeed(user);
    await (await user.press(speed, "❌ Cancel")).answer();
    expect((await user.nextMessage()).text).toBe(CANCELLED);
    expect(user.message(speed.message_id)?.reply_markup).toBeUndefined();
    await expectNoFlow(user);
  });

  it("/cancel leaves the flow at the amount step", async () => {
    const user = stack.tg.user({ id: 7305, language_code: "en" });
    await toAmount(user);
    await user.send("/cancel");
    expect((await user.nextMessage()).text).toBe(CANCELLED);
    await expectNoFlow(user);
  });

  it("cancelling at the quote leaves an unconfirmed order that can no longer be confirmed", async () => {
    const user = stack.tg.user({ id: 7306, language_code: "en" });
    await toAmount(user);
    await user.send("25000");
    const quoteCard = await user.nextMessage({ match: "Your bitcoin quote" });
    await user.send("/cancel");
    expect((await user.nextMessage()).text).toBe(CANCELLED);
    const late = await user.press(quoteCard, "✅ Confirm");
    expect((await late.answer()).text).toBe("This quote is no longer active. Use /buy to start again.");
    await stack.tg.idle();
    expect(user.messages().some((message) => message.text?.includes("Bitcoin purchase"))).toBe(false);
    const { orders } = await stack.app.store.orders.listForUser(user.id);
    expect(orders[0]?.confirmedAt).toBeUndefined();
    await expectNoFlow(user);
  });

  it("❌ on the quote card cancels too", async () => {
    const user = stack.tg.user({ id: 7307, language_code: "en" });
    await toAmount(user);
    await user.send("25000");
    const quoteCard = await user.nextMessage({ match: "Your bitcoin quote" });
    await (await user.press(quoteCard, "❌ Cancel")).answer();
    expect((await user.nextMessage()).text).toBe(CANCELLED);
    expect(user.message(quoteCard.message_id)?.reply_markup).toBeUndefined();
    await expectNoFlow(user);
  });

  it("starts from the main menu as well", async () => {
    const user = stack.tg.user({ id: 7308, language_code: "en" });
    await user.send("/start");
    const menu = await user.nextMessage();
    await (await user.press(menu, "₿ Buy bitcoin")).answer();
    expect((await user.nextMessage()).text).toContain("Step 1 of 3");
    await user.send("/cancel");
    expect((await user.nextMessage()).text).toBe(CANCELLED);
  });
});
