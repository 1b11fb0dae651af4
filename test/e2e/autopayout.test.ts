import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import { confirmQuote, nigerianRecipient, quoteFor } from "./payout-support.ts";

const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

/**
 * The real service defaults `autopayout` to false (api-behaviour-notes §2) and so does the sandbox: a quote sent
 * without it is paid in and never paid out. Every quote request the bot makes must carry it. The sandbox records
 * the field names each POST /quote body carried; after a payout and a purchase, every quote shows autopayout sent
 * and true — and both journeys completed, which they cannot without it.
 */
describe("autopayout is always sent", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("on every quote of a Lightning payout and an on-chain purchase", async () => {
    const ada = stack.tg.user({ id: 7601, first_name: "Ada", language_code: "en" });
    await nigerianRecipient(ada);
    const card = await quoteFor(ada, "10000");
    const { invoice, status } = await confirmQuote(ada, card);
    await (await ada.press(invoice, /Simulate/)).answer();
    await ada.nextEdit(status, { match: /Completed/ });

    const bola = stack.tg.user({ id: 7602, first_name: "Bola", language_code: "en" });
    await bola.send("/buy");
    await bola.nextMessage({ match: "Step 1 of 3" });
    await bola.send(TESTNET_ADDRESS);
    const speed = await bola.nextMessage({ match: "Step 2 of 3" });
    await (await bola.press(speed, /Fast/)).answer();
    await bola.nextMessage({ match: "Step 3 of 3" });
    await bola.send("50,000");
    const buyCard = await bola.nextMessage({ match: "Your bitcoin quote" });
    await (await bola.press(buyCard, "✅ Confirm")).answer();
    const buyStatus = await bola.nextMessage({ match: "Bitcoin purchase" });
    await (await bola.press(buyStatus, "🧪 Simulate payment")).answer();
    await bola.nextEdit(buyStatus, { match: /Bitcoin sent/ });

    const quotes = [...stack.sandbox.state.quotes.values()];
    expect(quotes.map((quote) => quote.sourceCurrency).sort()).toEqual(["BTCSAT", "NGNKOBO"]);
    for (const quote of quotes) {
      expect(quote.requestFields, quote.orderId).toContain("autopayout");
      expect(quote.autopayout, quote.orderId).toBe(true);
    }
    expect(stack.sandbox.state.account.settings.autopayout).toBe(false);
  });
});
