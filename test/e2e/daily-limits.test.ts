import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, type OpsStack, startOpsStack } from "./admin-stack.ts";
import {
  buttons,
  confirmQuote,
  knownNigerianRecipient,
  nigerianRecipient,
  pressAndEdit,
  quoteFor,
  typeAndRead,
} from "./payout-support.ts";

/**
 * Ops set a daily limit per user for a corridor: the quote card shows what is left after the payout, amounts above
 * what is left are refused before any quote (typed in naira) or right after it (typed in sats), and the limit
 * counts only confirmed payouts that did not expire or fail.
 */
describe("daily payout limits", () => {
  let ops: OpsStack;
  beforeAll(async () => {
    ops = await startOpsStack();
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("ops set, list and remove limits; bad input gets the usage", async () => {
    const set = await ask(ops.group, ops.ada, "/limits ng 15,000");
    expect(set.text).toContain("Daily limit for Nigeria set to ₦15,000.00 per user.");
    expect(set.text).toContain("Nigeria: ₦15,000.00");
    expect(set.text).toContain("Kenya: no limit");
    expect((await ask(ops.group, ops.ada, "/limits XX 100")).text).toMatch(/did not understand[\s\S]*Usage/);
    expect((await ask(ops.group, ops.ada, "/limits KE lots")).text).toMatch(/did not understand/);
    expect(await ops.stack.app.store.settings.dailyLimits()).toEqual({ NG: 1_500_000 });
  });

  it("the quote shows what is left; over the limit is refused in naira and in sats; the rest can be sent", async () => {
    const { tg, sandbox } = ops.stack;
    const user = tg.user({ id: 8_501, first_name: "Funke", language_code: "en" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "10000");
    expect(card.text).toContain("Daily limit: ₦5,000.00 left of ₦15,000.00 after this payout.");
    const { invoice, status } = await confirmQuote(user, card);
    await (await user.press(invoice, /Simulate/)).answer();
    await user.nextEdit(status, { match: /Completed/ });

    // The same recipient again: offered first now that they have been paid.
    await knownNigerianRecipient(user, "GTBANK PLC ••0000 · OLADEJI OLAOLU");
    const quotes = sandbox.state.quotes.size;
    const refused = await typeAndRead(user, "6000", /more than you can still send to Nigeria today/);
    expect(refused.text).toContain("₦5,000.00 left of your daily limit of ₦15,000.00");
    expect(refused.text).toContain("How much should they receive");
    expect(sandbox.state.quotes.size).toBe(quotes);

    // In sats: the naira amount is known once quoted; a quote above what is left is dropped, never shown.
    const satsPrompt = await pressAndEdit(user, refused, /in sats instead/, /sats/);
    const overInSats = await typeAndRead(user, "20000", /more than you can still send to Nigeria today/);
    expect(overInSats.message_id).not.toBe(satsPrompt.message_id);
    expect(buttons(overInSats)).toContain("💵 Type the amount in naira instead");
    const [dropped] = (await ops.stack.app.store.orders.listForUser(8_501, 0, 1)).orders;
    expect(dropped).toMatchObject({ stage: "cancelled", pay: { amount: 20_000 } });
    expect(dropped?.quoteMessageId).toBeUndefined();

    await pressAndEdit(user, overInSats, /in naira instead/, /How much should they receive/);
    const last = await quoteFor(user, "5000");
    expect(last.text).toContain("Daily limit: ₦0.00 left of ₦15,000.00 after this payout.");
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });
  });

  it("an unconfirmed or expired quote does not use the allowance; without a limit nothing is shown", async () => {
    const { tg } = ops.stack;
    const user = tg.user({ id: 8_502, first_name: "Segun", language_code: "en" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "15000");
    expect(card.text).toContain("Daily limit: ₦0.00 left of ₦15,000.00 after this payout.");
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });

    await ask(ops.group, ops.ben, "/limits NG off");
    await nigerianRecipient(user);
    const free = await quoteFor(user, "20000");
    expect(free.text).not.toContain("Daily limit");
    await user.send("/cancel");
  });
});
