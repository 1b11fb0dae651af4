import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  confirmQuote,
  nigerianRecipient,
  orderOf,
  pressAndEdit,
  quoteFor,
  startSend,
  typeAndRead,
} from "./payout-support.ts";

/**
 * What a person meets in their first hour, figure by figure: the buy card's rate, margin and network fee each as what
 * it is; a Kenyan payout rounded to what M-Pesa can pay; receipts carrying references shaped like the real ones.
 */

/** Minor units of a shown amount (sats, or fiat with its two decimals). */
const minorOf = (shown: string) => Number(shown.replace(/\D/g, ""));

/** Fiat minor units that `sats` cost at `ratePerBtc` (minor units per BTC), rounded half up. */
const atRate = (sats: number, ratePerBtc: number) =>
  Number((2n * BigInt(sats) * BigInt(ratePerBtc) + 100_000_000n) / 200_000_000n);

function read(text: string, pattern: RegExp): string[] {
  const match = pattern.exec(text);
  if (!match) throw new Error(`${pattern} not on the card:\n${text}`);
  return match.slice(1);
}

async function latestOrder(stack: Stack, userId: number): Promise<OrderRecord> {
  const { orders } = await stack.app.store.orders.listForUser(userId, 0, 1);
  if (!orders[0]) throw new Error(`user ${userId} has no order`);
  return orders[0];
}

async function buyCard(user: UserDriver, amount: string): Promise<Message> {
  await user.send("/buy");
  await user.nextMessage({ match: "Step 1 of 3" });
  await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
  const speed = await user.nextMessage({ match: "Step 2 of 3" });
  await (await user.press(speed, /Fast/)).answer();
  await user.nextMessage({ match: "Step 3 of 3" });
  await user.send(amount);
  return user.nextMessage({ match: "Your bitcoin quote" });
}

async function kenyanPhone(user: UserDriver, network: "✅ M-Pesa" | "Airtel Money" = "✅ M-Pesa") {
  const countries = await startSend(user);
  const methods = await pressAndEdit(user, countries, /Kenya/, /How should the money arrive/);
  await pressAndEdit(user, methods, /M-Pesa \/ Airtel phone/, /phone number/);
  const wallets = await typeAndRead(user, "0790 000 000", /Which wallet/);
  await pressAndEdit(user, wallets, network, /name/);
  return typeAndRead(user, "Jane Wanjiku", /How much/);
}

/** Pay a payout card in the sandbox, wait for Completed, and open its receipt. */
async function receiptOf(user: UserDriver, card: Message): Promise<string> {
  const { invoice, status } = await confirmQuote(user, card);
  await (await user.press(invoice, /Simulate/)).answer();
  const done = await user.nextEdit(status, { match: /Completed/ });
  await (await user.press(done, /Receipt/)).answer();
  return (await user.nextMessage({ match: /Payment receipt/ })).text ?? "";
}

describe("the first hour, as a person meets it", () => {
  let stack: Stack;
  beforeAll(async () => {
    // A spread on NGN→BTC, as the real service has on some pairs: the margin must show it, not the rate.
    stack = await startStack({ sandbox: { prices: { spreadBps: { "NGN-BTC": 40 } } } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("the buy card shows the API's exchange rate, the margin in naira and the exact network fee", async () => {
    const user = stack.tg.user({ id: 7901, first_name: "Ngozi", language_code: "en" });
    const price = await stack.app.api.getPrice("NGN");
    const apiRate = Math.round(price.btcPriceInUnitCurrency * 100);
    for (const typed of ["10,000", "7,000 sats"]) {
      const card = await buyCard(user, typed);
      const text = card.text ?? "";
      const order = await latestOrder(stack, user.id);
      const quote = stack.sandbox.state.quotes.get(order.quoteId);
      expect(text).not.toMatch(/about [\d,]+ sats/);
      expect(text).not.toContain("margin included");

      const [pay = ""] = read(text, /Transfer exactly: (.+) \(fees included\)/);
      const [exchanged = "", bought = "", margin = ""] = read(
        text,
        /= (.+) for ([\d,]+ sats) \+ (.+) exchange margin/,
      );
      const [receive = ""] = read(text, /You receive: ([\d,]+ sats)/);
      const [rate = ""] = read(text, /Exchange rate: 1 BTC = (.+)/);
      const [network = "", boughtAgain = ""] = read(
        text,
        /Bitcoin network fee: exactly ([\d,]+ sats?), taken from the ([\d,]+ sats) bought/,
      );
      // Each figure is the API's: what is paid, what arrives, the network fee, the exchange rate.
      expect(minorOf(pay)).toBe(quote?.total);
      expect(minorOf(receive)).toBe(quote?.amountInTarget);
      expect(minorOf(network)).toBe(quote?.estimatedRoutingFee);
      expect(minorOf(network)).toBe(600);
      expect(minorOf(rate)).toBe(apiRate);
      // And they reconcile: kobo exact on what is paid, sats exact on what arrives.
      expect(minorOf(exchanged) + minorOf(margin)).toBe(minorOf(pay));
      expect(atRate(minorOf(bought), minorOf(rate))).toBe(minorOf(exchanged));
      expect(boughtAgain).toBe(bought);
      expect(minorOf(bought) - minorOf(network)).toBe(minorOf(receive));
      // The margin is everything the exchange keeps: its fee and the spread, never the network fee.
      expect(minorOf(margin)).toBeGreaterThan(quote?.feesInSource ?? 0);
      await user.send("/cancel");
      await user.nextMessage({ match: /Cancelled/ });
    }
  });

  it("sats typed for M-Pesa: the recipient gets whole shillings, quoted by the API for that amount", async () => {
    const user = stack.tg.user({ id: 7902, first_name: "Wanjiku" });
    const amount = await kenyanPhone(user);
    await pressAndEdit(user, amount, /in sats instead/, /How many sats/);
    // 20,001 sats would buy KSh 2,587.13 at the sandbox's price: M-Pesa cannot pay the 13 cents.
    const card = await quoteFor(user, "20,001");
    const text = card.text ?? "";
    expect(text).toContain("Recipient gets: KSh 2,587.00");
    expect(text).toContain("M-Pesa pays whole shillings: rounded down from KSh 2,587.13.");
    const order = await orderOf(stack, card);
    const quote = stack.sandbox.state.quotes.get(order.quoteId);
    expect(quote).toMatchObject({ paymentCurrency: "KESCENT", amountInTarget: 258_700 });
    expect(order.receive).toEqual({ amount: 258_700, currency: "KESCENT" });
    const [pay = "", exchanged = "", fee = ""] = read(
      text,
      /You pay: ([\d,]+ sats)\n\s+= ([\d,]+ sats) exchanged \+ ([\d,]+ sats) fee/,
    );
    expect(minorOf(pay)).toBe(quote?.total);
    expect(minorOf(pay)).toBeLessThanOrEqual(20_001);
    expect(minorOf(exchanged) + minorOf(fee)).toBe(minorOf(pay));
    expect(order.pay).toEqual({ amount: quote?.total, currency: "BTCSAT" });
  });

  it("shillings with cents for Airtel Money are rounded down before the quote; ZAR keeps its cents", async () => {
    const user = stack.tg.user({ id: 7903, first_name: "Otieno" });
    await kenyanPhone(user, "Airtel Money");
    const card = await quoteFor(user, "1,500.50");
    expect(card.text).toContain("Recipient gets: KSh 1,500.00");
    expect(card.text).toContain("Airtel Money pays whole shillings: rounded down from KSh 1,500.50.");
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.get(order.quoteId)).toMatchObject({ amountInTarget: 150_000 });

    const thandi = stack.tg.user({ id: 7904, first_name: "Thandi" });
    const countries = await startSend(thandi);
    const banks = await pressAndEdit(thandi, countries, /South Africa/, /Which bank/);
    await pressAndEdit(thandi, banks, "CAPITEC BANK", /account number/);
    await typeAndRead(thandi, "1352 900 000", /account holder's name/);
    const amount = await typeAndRead(thandi, "Ricki Tester", /How much/);
    await pressAndEdit(thandi, amount, /in sats instead/, /How many sats/);
    const zar = await quoteFor(thandi, "20,001");
    expect(zar.text).toMatch(/Recipient gets: R \d+\.(?!00)\d\d/);
    expect(zar.text).not.toContain("whole");
  });

  it("receipts carry a 30-digit NIP session ID and a 10-character M-Pesa receipt", async () => {
    const ada = stack.tg.user({ id: 7905, first_name: "Ada" });
    await nigerianRecipient(ada);
    const nigerian = await receiptOf(ada, await quoteFor(ada, "10,000"));
    expect(nigerian).toMatch(/^NIP session ID: \d{30}$/m);

    const jane = stack.tg.user({ id: 7906, first_name: "Jane" });
    await kenyanPhone(jane);
    const kenyan = await receiptOf(jane, await quoteFor(jane, "1,500"));
    const [receipt = ""] = read(kenyan, /^M-Pesa receipt: (\S+)$/m);
    expect(receipt).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    // The same reference the sandbox's payout carries, not an id of ours.
    const sent = stack.sandbox.state.transactions.filter(
      (tx) => tx.type === "WITHDRAWAL" && tx.currency === "KES",
    );
    expect(sent.at(-1)?.providerReference).toBe(receipt);
  });
});
