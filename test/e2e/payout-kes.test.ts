import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  buttons,
  confirmQuote,
  orderOf,
  pressAndEdit,
  quoteFor,
  startSend,
  typeAndRead,
} from "./payout-support.ts";

describe("payout to Kenya", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function kenya(user: UserDriver): Promise<Message> {
    const countries = await startSend(user);
    const methods = await pressAndEdit(user, countries, /Kenya/, /How should the money arrive/);
    expect(buttons(methods)).toEqual([
      "📱 M-Pesa / Airtel phone",
      "🧾 Paybill",
      "🏪 Till (Buy Goods)",
      "❌ Cancel",
    ]);
    return methods;
  }

  async function payAndComplete(user: UserDriver, card: Message): Promise<Message> {
    const { invoice, status } = await confirmQuote(user, card);
    await (await user.press(invoice, /Simulate/)).answer();
    return user.nextEdit(status, { match: /Completed/ });
  }

  it("M-Pesa phone written the local way: normalised, network confirmed, paid to completion", async () => {
    const wanjiku = stack.tg.user({ id: 7201, first_name: "Wanjiku" });
    const methods = await kenya(wanjiku);
    await pressAndEdit(wanjiku, methods, /M-Pesa \/ Airtel phone/, /phone number/);
    expect((await typeAndRead(wanjiku, "12345")).text).toMatch(/not a Kenyan mobile number/);
    expect((await typeAndRead(wanjiku, "+234 803 123 4567")).text).toMatch(/not Kenyan/);
    const network = await typeAndRead(wanjiku, "0790 000 000", /Which wallet/);
    expect(network.text).toContain("+254 790 000000 looks like a number on M-Pesa");
    expect(buttons(network)).toEqual(["✅ M-Pesa", "Airtel Money", "❌ Cancel"]);
    expect((await typeAndRead(wanjiku, "mpesa")).text).toMatch(/choose one of the buttons/);
    const namePrompt = await pressAndEdit(wanjiku, network, "✅ M-Pesa", /name/);
    expect(namePrompt.text).toContain("+254 790 000000");
    const badName = await typeAndRead(wanjiku, "7");
    expect(badName.text).toMatch(
      /type the name as letters \(2 to 70 characters\), for example Wanjiku Kamau\./,
    );
    expect(badName.text).not.toContain("Ada Obi");
    const amount = await typeAndRead(wanjiku, "Jane Wanjiku", /How much/);
    expect(amount.text).toContain("To: M-Pesa ••0000 · Jane Wanjiku");
    expect(amount.text).toContain("Minimum: KSh 260.00");

    // Bad amounts, each with its own message; the step goes on.
    expect((await typeAndRead(wanjiku, "0712345678")).text).toMatch(/phone or account number, not an amount/);
    expect((await typeAndRead(wanjiku, "KSh 100")).text).toMatch(/below the minimum of KSh 260.00/);
    expect((await typeAndRead(wanjiku, "$5")).text).toMatch(/can't take USD/);
    expect((await typeAndRead(wanjiku, "₦5000")).text).toMatch(
      /looks like naira, but this payout is in shillings/,
    );
    expect((await typeAndRead(wanjiku, "lots")).text).toMatch(/doesn't look like an amount/);
    expect((await typeAndRead(wanjiku, "1,000,000")).text).toMatch(/more than we can send/);
    expect((await typeAndRead(wanjiku, "0")).text).toMatch(/more than zero/);

    const card = await quoteFor(wanjiku, "1,500");
    expect(card.text).toContain("Recipient gets: KSh 1,500.00");
    expect(card.text).toContain("To: Jane Wanjiku");
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)).toMatchObject({
      targetCurrency: "KESCENT",
      paymentCurrency: "KESCENT",
      amountInTarget: 150_000,
      beneficiary: {
        identifierType: "paytophone",
        phoneNumber: "+254790000000",
        accountName: "Jane Wanjiku",
        network: "mpesa",
      },
    });
    const done = await payAndComplete(wanjiku, card);
    expect(done.text).toContain("KSh 1,500.00 was delivered to M-Pesa ••0000 · Jane Wanjiku");
  });

  it("an Airtel prefix is suggested but the user decides; the amount can be typed in sats", async () => {
    const otieno = stack.tg.user({ id: 7202, first_name: "Otieno" });
    const methods = await kenya(otieno);
    await pressAndEdit(otieno, methods, /phone/, /phone number/);
    const network = await typeAndRead(otieno, "+254 733 123 456", /Which wallet/);
    expect(network.text).toMatch(/looks like a number on Airtel Money/);
    expect(buttons(network)).toEqual(["✅ Airtel Money", "M-Pesa", "❌ Cancel"]);
    await pressAndEdit(otieno, network, "M-Pesa", /name/);
    const amount = await typeAndRead(otieno, "Otieno Ouma", /How much/);
    const sats = await pressAndEdit(otieno, amount, /in sats instead/, /How many sats/);
    expect(buttons(sats)).toContain("💵 Type the amount in shillings instead");
    const card = await quoteFor(otieno, "20,000");
    expect(card.text).toContain("You pay: 20,000 sats");
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)).toMatchObject({
      paymentCurrency: "BTCSAT",
      amountInSource: 20_000,
      beneficiary: { phoneNumber: "+254733123456", network: "mpesa" },
    });
  });

  it("paybill with account number and business name, paid to completion", async () => {
    const user = stack.tg.user({ id: 7203, first_name: "Akinyi" });
    const methods = await kenya(user);
    await pressAndEdit(user, methods, /Paybill/, /paybill \(business\) number/);
    expect((await typeAndRead(user, "12")).text).toMatch(/5 to 7 digits/);
    expect((await typeAndRead(user, "41410A1")).text).toMatch(/5 to 7 digits/);
    await typeAndRead(user, "4141031", /account number.*4141031/s);
    expect((await typeAndRead(user, "x".repeat(31))).text).toMatch(/up to 30 letters or digits/);
    await typeAndRead(user, "test_account", /name.*business/s);
    const amount = await typeAndRead(user, "KPLC Prepaid", /How much/);
    expect(amount.text).toContain("To: Paybill 4141031 · ••ount · KPLC Prepaid");
    const card = await quoteFor(user, "2000");
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)?.beneficiary).toMatchObject({
      identifierType: "paytobill",
      paybillNumber: "4141031",
      accountNumber: "test_account",
      accountName: "KPLC Prepaid",
    });
    await payAndComplete(user, card);
  });

  it("till number and business name, paid to completion", async () => {
    const user = stack.tg.user({ id: 7204, first_name: "Mwangi" });
    const methods = await kenya(user);
    await pressAndEdit(user, methods, /Till/, /till number/);
    expect((await typeAndRead(user, "12ab")).text).toMatch(/till number has 5 to 7 digits/);
    await typeAndRead(user, "000000", /name.*business/s);
    const amount = await typeAndRead(user, "Mama Mboga Shop", /How much/);
    expect(amount.text).toContain("To: Till 000000 · Mama Mboga Shop");
    const card = await quoteFor(user, "300");
    const order = await orderOf(stack, card);
    expect(order.recipientLabel).toBe("Till 000000 · Mama Mboga Shop");
    expect(stack.sandbox.state.quotes.get(order.quoteId)?.beneficiary).toMatchObject({
      identifierType: "paytotill",
      tillNumber: "000000",
    });
    const done = await payAndComplete(user, card);
    expect(done.text).toContain("KSh 300.00 was delivered to Till 000000 · Mama Mboga Shop");
  });
});
