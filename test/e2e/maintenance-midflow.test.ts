import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, type OpsStack, startOpsStack } from "./admin-stack.ts";
import { nigerianRecipient, typeAndRead } from "./payout-support.ts";

/** Ops pause new quotes while people are already inside a flow: nobody gets a quote until ops resume. */
describe("maintenance reaches users who are mid-flow", () => {
  let ops: OpsStack;
  beforeAll(async () => {
    ops = await startOpsStack();
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("stops the payout flow at the quote step with the ops message, and quotes again once resumed", async () => {
    const { tg, sandbox } = ops.stack;
    const user = tg.user({ id: 8_301, first_name: "Ngozi", language_code: "en" });
    const amountPrompt = await nigerianRecipient(user);
    expect(amountPrompt.text).toMatch(/How much/);

    await ask(ops.group, ops.ada, "/maintenance on Back at 14:00");
    const quotesBefore = sandbox.state.quotes.size;
    const notice = await typeAndRead(user, "10000", /New transfers are paused/);
    expect(notice.text).toContain("Back at 14:00");
    expect(sandbox.state.quotes.size).toBe(quotesBefore);

    await ask(ops.group, ops.ada, "/maintenance off");
    const again = await nigerianRecipient(user);
    const card = await typeAndRead(user, "10000", /You pay/);
    expect(again.text).toMatch(/How much/);
    expect(card.text).toContain("Recipient gets: ₦10,000.00");
    expect(sandbox.state.quotes.size).toBe(quotesBefore + 1);
  });

  it("stops the buy flow at the quote step too", async () => {
    const { tg, sandbox } = ops.stack;
    const user = tg.user({ id: 8_302, first_name: "Kofi", language_code: "en" });
    await user.send("/buy");
    await user.nextMessage({ match: /address/i });
    await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
    const speed = await user.nextMessage({ match: /speed|fast/i });
    const press = await user.press(speed, /Fast/);
    await press.answer();
    await user.nextMessage({ match: /How much|amount/i }).catch(() => user.nextEdit(speed));
    await ask(ops.group, ops.ada, "/maintenance on");
    const quotesBefore = sandbox.state.quotes.size;
    await user.send("20000");
    await user.nextMessage({ match: /New transfers are paused/ });
    expect(sandbox.state.quotes.size).toBe(quotesBefore);
    await ask(ops.group, ops.ada, "/maintenance off");
  });
});
