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

describe("payout to South Africa and Ghana", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function payAndComplete(user: UserDriver, card: Message): Promise<Message> {
    const { invoice, status } = await confirmQuote(user, card);
    await (await user.press(invoice, /Simulate/)).answer();
    return user.nextEdit(status, { match: /Completed/ });
  }

  it("ZAR: a bank from the API's list, the account number and the holder, paid to completion", async () => {
    const thandi = stack.tg.user({ id: 7301, first_name: "Thandi" });
    const countries = await startSend(thandi);
    const banks = await pressAndEdit(thandi, countries, /South Africa/, /Which bank/);
    expect(buttons(banks)).toEqual(
      expect.arrayContaining(["ABSA", "CAPITEC BANK", "FNB", "STANDARD BANK", "TYMEBANK"]),
    );
    // Typing works when it points at one bank; a fragment several banks share shows just those.
    const nothing = await typeAndRead(thandi, "zzz bank");
    expect(nothing.text).toMatch(/No bank matches “zzz bank”/);
    expect(buttons(nothing)).toEqual(buttons(banks));
    const matches = await typeAndRead(thandi, "capitec");
    expect(matches.text).toBe("Banks matching “capitec”. Tap the right one, or type another name:");
    expect(buttons(matches)).toEqual([
      "CAPITEC BANK",
      "CAPITEC BUSINESS BANK",
      "🔎 Search again",
      "❌ Cancel",
    ]);
    const all = await pressAndEdit(thandi, matches, /Search again/, /Which bank/);
    expect(buttons(all)).toEqual(buttons(banks));
    const narrowed = await typeAndRead(thandi, "Capitec", /Banks matching/);
    await pressAndEdit(thandi, narrowed, "CAPITEC BANK", /account number.*CAPITEC BANK/s);
    expect((await typeAndRead(thandi, "123")).text).toMatch(/6 to 16 digits; you sent 3/);
    expect((await typeAndRead(thandi, "13529OOOOO")).text).toMatch(/digits only/);
    await typeAndRead(thandi, "1352 900 000", /account holder's name/);
    expect((await typeAndRead(thandi, "7")).text).toMatch(/for example Thandi Nkosi\./);
    const amount = await typeAndRead(thandi, "Ricki Tester", /How much/);
    expect(amount.text).toContain("To: CAPITEC BANK ••0000 · Ricki Tester");
    expect(amount.text).toContain("Minimum: R 36.00");
    expect((await typeAndRead(thandi, "R 20")).text).toMatch(/below the minimum of R 36.00/);
    const card = await quoteFor(thandi, "R 100");
    expect(card.text).toContain("Recipient gets: R 100.00");
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)).toMatchObject({
      targetCurrency: "ZARCENT",
      autopayout: true,
      beneficiary: { name: "Ricki Tester", bankName: "CAPITEC BANK", bankAccountNumber: "1352900000" },
    });
    const done = await payAndComplete(thandi, card);
    expect(done.text).toContain("R 100.00 was delivered to CAPITEC BANK ••0000 · Ricki Tester");
  });

  it("ZAR: typing a bank's unique name picks it", async () => {
    const user = stack.tg.user({ id: 7302, first_name: "Sipho" });
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /South Africa/, /Which bank/);
    expect((await typeAndRead(user, "fnb")).text).toMatch(/account number at FNB/);
  });

  it("GHS: non-MTN and foreign numbers are refused up front; an MTN number is paid to completion", async () => {
    const kofi = stack.tg.user({ id: 7303, first_name: "Kofi" });
    const countries = await startSend(kofi);
    await pressAndEdit(kofi, countries, /Ghana/, /MTN mobile money number/);
    expect((await typeAndRead(kofi, "020 123 4567")).text).toMatch(/Telecel \(Vodafone\) number\. Only MTN/);
    expect((await typeAndRead(kofi, "027 123 4567")).text).toMatch(/AirtelTigo number/);
    expect((await typeAndRead(kofi, "+254 712 345 678")).text).toMatch(/not Ghanaian/);
    expect((await typeAndRead(kofi, "024 123")).text).toMatch(/not a Ghanaian mobile number/);
    await typeAndRead(kofi, "024 123 4567", /name on the MoMo account/);
    expect((await typeAndRead(kofi, "7")).text).toMatch(/for example Kwame Mensah\./);
    const amount = await typeAndRead(kofi, "Kofi Mensah", /How much/);
    expect(amount.text).toContain("To: MTN MoMo ••4567 · Kofi Mensah");
    expect(amount.text).toContain("Minimum: GH₵ 24.00");
    const card = await quoteFor(kofi, "GH₵ 50");
    expect(card.text).toContain("Recipient gets: GH₵ 50.00");
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)).toMatchObject({
      targetCurrency: "GHSPESEWA",
      beneficiary: { identifierType: "MTN", phoneNumber: "+233241234567", accountName: "Kofi Mensah" },
    });
    const done = await payAndComplete(kofi, card);
    expect(done.text).toContain("GH₵ 50.00 was delivered to MTN MoMo ••4567 · Kofi Mensah");
  });

  it("GHS: the staging test number is accepted outside production", async () => {
    const ama = stack.tg.user({ id: 7304, first_name: "Ama" });
    const countries = await startSend(ama);
    await pressAndEdit(ama, countries, /Ghana/, /MTN mobile money number/);
    await typeAndRead(ama, "+233999992800", /name on the MoMo account/);
  });
});
