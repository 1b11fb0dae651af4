import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import { buttons, nigerianRecipient, orderOf, pressAndEdit, quoteCount } from "./payout-support.ts";

/**
 * One user action → at most one quote at the API. `500-after` makes the sandbox create the quote and then answer
 * 500: the bot reads GET /order/all back for its customerReference and adopts the quote; when it cannot read the
 * listing either, it says so, and "Try again" reads again before it would ever create another.
 */
const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

describe("uncertain quote creation", () => {
  let stack: Stack;
  const fault = (body: Record<string, unknown>) =>
    fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
      method: body.clear ? "DELETE" : "POST",
      headers: { "content-type": "application/json" },
      ...(body.clear ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    stack = await startStack();
  });
  afterEach(async () => {
    await fault({ clear: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("payout: a quote made but answered 500 is read back and shown; exactly one quote at the API", async () => {
    const user = stack.tg.user({ id: 7601, first_name: "Ngozi" });
    await nigerianRecipient(user);
    expect((await fault({ endpoint: "POST /quote", mode: "500-after" })).ok).toBe(true);
    const before = quoteCount(stack);
    await user.send("5000");
    const card = await user.nextMessage({ match: /Your quote/ });
    expect(card.text).toContain("Recipient gets: ₦5,000.00");
    expect(quoteCount(stack)).toBe(before + 1);
    const order = await orderOf(stack, card);
    const quote = stack.sandbox.state.quotes.get(order.quoteId);
    expect(quote?.customerReference).toMatch(/^tg-/);
  });

  it("payout: listing unreadable too → an honest message; Try again adopts the same quote, never a second", async () => {
    const user = stack.tg.user({ id: 7602, first_name: "Amaka" });
    await nigerianRecipient(user);
    await fault({ endpoint: "POST /quote", mode: "500-after" });
    await fault({ endpoint: "GET /order/all", mode: "500", times: 1_000 });
    const before = quoteCount(stack);
    await user.send("5000");
    const problem = await user.nextMessage({ match: /could not confirm whether your quote was created/ });
    expect(buttons(problem)).toEqual(["🔄 Try again", "✏️ Change amount", "❌ Cancel"]);
    expect(quoteCount(stack)).toBe(before + 1);

    // Still unreadable: the same honest answer stays on screen, and nothing new at the API.
    await (await user.press(problem, /Try again/)).answer();
    await stack.tg.idle();
    expect(user.message(problem.message_id)?.text).toMatch(
      /could not confirm whether your quote was created/,
    );
    expect(quoteCount(stack)).toBe(before + 1);

    await fault({ clear: true });
    const card = await pressAndEdit(user, problem, /Try again/, /Your quote/);
    expect(card.text).toContain("Recipient gets: ₦5,000.00");
    expect(quoteCount(stack)).toBe(before + 1);
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)?.customerReference).toMatch(/^tg-/);
  });

  it("buy: a quote made but answered 500 is read back; Try again after an unreadable listing adopts it", async () => {
    const user = stack.tg.user({ id: 7603, language_code: "en" });
    await fault({ endpoint: "POST /quote", mode: "500-after" });
    await fault({ endpoint: "GET /order/all", mode: "500", times: 1_000 });
    const before = quoteCount(stack);
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send(TESTNET_ADDRESS);
    await (await user.press(await user.nextMessage({ match: "Step 2 of 3" }), /Slow/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    await user.send("20000");
    const failure = await user.nextMessage({ match: /could not confirm whether your quote was created/ });
    expect(quoteCount(stack)).toBe(before + 1);

    await fault({ clear: true });
    await (await user.press(failure, "🔄 Try again")).answer();
    const card = await user.nextMessage({ match: "Your bitcoin quote" });
    expect(card.text).toContain("Transfer exactly: ₦20,000.00");
    await stack.tg.idle();
    expect(quoteCount(stack)).toBe(before + 1);
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });
  });
});
