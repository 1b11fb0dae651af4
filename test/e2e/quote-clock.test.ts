import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { formatClock } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  buttons,
  confirmQuote,
  current,
  nigerianRecipient,
  orderOf,
  pressAndEdit,
  quoteCount,
  quoteFor,
  startSend,
  typeAndRead,
} from "./payout-support.ts";

const SIX_MINUTES = 6 * 60_000;
const LOCALE = "en-NG"; // what English speakers get

/** The digits of a shown amount: minor units (sats, or fiat with its two decimals). */
function minorOf(shown: string): number {
  return Number(shown.replace(/\D/g, ""));
}

interface CardFigures {
  pay: number;
  exchanged: number;
  fee: number;
  receive: number;
  ratePerBtc: number;
}

/** Read the money lines of a card as the user sees them (the emulator's plain text). */
function figuresOf(text: string, lines: { pay: RegExp; receive: RegExp }): CardFigures {
  const pay = lines.pay.exec(text)?.[1];
  const breakdown = /= (.+) exchanged \+ (.+) fee/.exec(text);
  const receive = lines.receive.exec(text)?.[1];
  const rate = /Your rate: 1 BTC = (.+) \(exchange margin included\)/.exec(text)?.[1];
  if (!pay || !breakdown?.[1] || !breakdown[2] || !receive || !rate)
    throw new Error(`unreadable card:\n${text}`);
  return {
    pay: minorOf(pay),
    exchanged: minorOf(breakdown[1]),
    fee: minorOf(breakdown[2]),
    receive: minorOf(receive),
    ratePerBtc: minorOf(rate),
  };
}

const PAYOUT_LINES = { pay: /You pay: ([\d,]+ sats)/, receive: /Recipient gets: (.+)/ };

/** The fiat amount the shown rate gives for `sats`, rounded to the nearest minor unit. */
const atRate = (sats: number, ratePerBtc: number) =>
  Number((2n * BigInt(sats) * BigInt(ratePerBtc) + 100_000_000n) / 200_000_000n);

async function kenyanRecipient(user: UserDriver): Promise<void> {
  const countries = await startSend(user);
  const methods = await pressAndEdit(user, countries, /Kenya/, /How should the money arrive/);
  await pressAndEdit(user, methods, /M-Pesa \/ Airtel phone/, /phone number/);
  const network = await typeAndRead(user, "0790 000 000", /Which wallet/);
  await pressAndEdit(user, network, "✅ M-Pesa", /name/);
  await typeAndRead(user, "Jane Wanjiku", /How much/);
}

async function southAfricanRecipient(user: UserDriver): Promise<void> {
  const countries = await startSend(user);
  const banks = await pressAndEdit(user, countries, /South Africa/, /Which bank/);
  await pressAndEdit(user, banks, "CAPITEC BANK", /account number/);
  await typeAndRead(user, "1352 900 000", /account holder's name/);
  await typeAndRead(user, "Ricki Tester", /How much/);
}

async function ghanaianRecipient(user: UserDriver): Promise<void> {
  const countries = await startSend(user);
  await pressAndEdit(user, countries, /Ghana/, /MTN mobile money number/);
  await typeAndRead(user, "024 123 4567", /name on the MoMo account/);
  await typeAndRead(user, "Kofi Mensah", /How much/);
}

const CORRIDORS: ReadonlyArray<{
  country: string;
  userId: number;
  recipient: (user: UserDriver) => Promise<unknown>;
  amounts: [string, number][];
}> = [
  {
    country: "NG",
    userId: 7601,
    recipient: nigerianRecipient,
    amounts: [
      ["5000", 500_000],
      ["20,000", 2_000_000],
      ["250000", 25_000_000],
    ],
  },
  {
    country: "KE",
    userId: 7602,
    recipient: kenyanRecipient,
    amounts: [
      ["500", 50_000],
      ["1,500", 150_000],
      ["20000", 2_000_000],
    ],
  },
  {
    country: "ZA",
    userId: 7603,
    recipient: southAfricanRecipient,
    amounts: [
      ["R 50", 5_000],
      ["R 500", 50_000],
      ["R 5000", 500_000],
    ],
  },
  {
    country: "GH",
    userId: 7604,
    recipient: ghanaianRecipient,
    amounts: [
      ["GH₵ 30", 3_000],
      ["GH₵ 250", 25_000],
      ["GH₵ 2000", 200_000],
    ],
  },
];

async function latestOrder(stack: Stack, userId: number): Promise<OrderRecord> {
  const { orders } = await stack.app.store.orders.listForUser(userId, 0, 1);
  if (!orders[0]) throw new Error(`user ${userId} has no order`);
  return orders[0];
}

describe("cards that add up", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  for (const corridor of CORRIDORS) {
    it(`${corridor.country}: every quote card's lines sum to what is paid, and its rate gives what arrives`, async () => {
      const user = stack.tg.user({ id: corridor.userId, first_name: `Payer ${corridor.country}` });
      for (const [typed, minor] of corridor.amounts) {
        await corridor.recipient(user);
        const card = await quoteFor(user, typed);
        const order = await orderOf(stack, card);
        const quote = stack.sandbox.state.quotes.get(order.quoteId);
        const shown = figuresOf(card.text ?? "", PAYOUT_LINES);
        expect(shown.receive).toBe(minor);
        expect(shown.exchanged + shown.fee).toBe(shown.pay);
        // Every figure comes from the quote the API made.
        expect(shown.pay).toBe(quote?.total);
        expect(shown.fee).toBe(quote?.feesInSource);
        expect(shown.receive).toBe(quote?.amountInTarget);
        expect({ pay: order.pay.amount, fee: order.fee.amount }).toEqual({ pay: shown.pay, fee: shown.fee });
        // The rate shown is the one the user gets: the exchanged sats at that rate are exactly what arrives.
        expect(atRate(shown.exchanged, shown.ratePerBtc)).toBe(shown.receive);
        await pressAndEdit(user, card, /Cancel/, /Quote cancelled/);
        await user.nextMessage({ match: /Cancelled/ });
      }
    });
  }

  it("the status card after Confirm shows the same reconciled figures", async () => {
    const user = stack.tg.user({ id: 7605, first_name: "Ada" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "5000");
    const fromCard = figuresOf(card.text ?? "", PAYOUT_LINES);
    const { status, photo } = await confirmQuote(user, card);
    expect(figuresOf(status.text ?? "", PAYOUT_LINES)).toEqual(fromCard);
    expect(photo.caption).toContain(`Pay ${card.text?.match(/You pay: ([\d,]+ sats)/)?.[1]}`);
  });

  it("buy: naira paid = naira exchanged + margin, the rate gives the sats bought, the network fee what is left", async () => {
    const user = stack.tg.user({ id: 7606, first_name: "Bola" });
    for (const amount of ["15,000", "50,000", "400000"]) {
      await user.send("/buy");
      await user.nextMessage({ match: "Step 1 of 3" });
      await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
      const speed = await user.nextMessage({ match: "Step 2 of 3" });
      await (await user.press(speed, /Fast/)).answer();
      await user.nextMessage({ match: "Step 3 of 3" });
      await user.send(amount);
      const card = await user.nextMessage({ match: "Your bitcoin quote" });
      const order = await latestOrder(stack, user.id);
      const quote = stack.sandbox.state.quotes.get(order.quoteId);
      const text = card.text ?? "";
      const pay = minorOf(/Transfer exactly: (.+) \(fees included\)/.exec(text)?.[1] ?? "");
      const [, exchanged = "", bought = "", margin = ""] =
        /= (.+) for ([\d,]+ sats) \+ (.+) exchange margin/.exec(text) ?? [];
      const receive = minorOf(/You receive: ([\d,]+ sats)/.exec(text)?.[1] ?? "");
      const rate = minorOf(/Exchange rate: 1 BTC = (.+)/.exec(text)?.[1] ?? "");
      const network = minorOf(/network fee: exactly ([\d,]+ sats)/.exec(text)?.[1] ?? "");
      expect(pay).toBe(quote?.total);
      expect(receive).toBe(quote?.amountInTarget);
      expect(network).toBe(quote?.estimatedRoutingFee);
      expect(minorOf(exchanged) + minorOf(margin)).toBe(pay);
      // Naira per BTC: the sats bought at the shown rate are the naira exchanged; the network fee takes its part.
      expect(atRate(minorOf(bought), rate)).toBe(minorOf(exchanged));
      expect(minorOf(bought) - network).toBe(receive);
      await user.send("/cancel");
      await user.nextMessage({ match: /Cancelled/ });
    }
  });
});

describe("one clock: deadlines from the API's expiry, on the API's clock", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("a quote left alone flips to expired by itself at the API's deadline; New quote's deadline is later", async () => {
    const user = stack.tg.user({ id: 7611, first_name: "Emeka" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "6000");
    const first = await orderOf(stack, card);
    const until = formatClock(Date.parse(first.expiresAt), LOCALE, "NG");
    expect(card.text).toMatch(new RegExp(`holds for [45]:\\d\\d \\(until ${until}\\)`));
    const quotes = quoteCount(stack);
    await stack.advanceClock(SIX_MINUTES);
    // No user action: the reconciler sees the deadline on the sandbox's clock and edits the card.
    const expired = await user.nextEdit(card, { match: /This quote expired/ });
    expect(expired.text).toContain(`This quote expired at ${until}`);
    expect(buttons(expired)).toEqual(["🔁 New quote"]);
    expect(quoteCount(stack)).toBe(quotes);

    const fresh = await pressAndEdit(user, expired, /New quote/, /Your quote/);
    const second = await orderOf(stack, fresh);
    expect(Date.parse(second.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    expect(Date.parse(second.expiresAt) - stack.sandbox.now()).toBeLessThanOrEqual(5 * 60_000);
    const secondUntil = formatClock(Date.parse(second.expiresAt), LOCALE, "NG");
    expect(fresh.text).toMatch(new RegExp(`holds for [45]:\\d\\d \\(until ${secondUntil}\\)`));
    // Invoice, status card and quote card name the same deadline.
    const { photo, status } = await confirmQuote(user, fresh);
    expect(photo.caption).toMatch(new RegExp(`Valid for [45]:\\d\\d \\(until ${secondUntil}\\)`));
    expect(status.text).toContain(`Pay before ${secondUntil}`);
  });
});

describe("when a flow ends, its screens stop looking live", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("/cancel on a quote card: the card says cancelled, keeps no buttons, and never turns into 'expired'", async () => {
    const user = stack.tg.user({ id: 7631, first_name: "Uche" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "5000");
    const order = await orderOf(stack, card);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });
    const retired = await user.nextEdit(card, { match: /Quote cancelled/ });
    expect(buttons(retired)).toEqual([]);
    expect(await stack.app.store.orders.get(order.orderId)).toMatchObject({
      stage: "cancelled",
      cancelledAt: expect.any(String),
    });
    await stack.advanceClock(SIX_MINUTES);
    await stack.tg.idle({ quietMs: 1_000 });
    expect(current(user, card).text).toContain("Quote cancelled");
  });

  it("a newer /send retires the older quote card", async () => {
    const user = stack.tg.user({ id: 7632, first_name: "Tunde" });
    await nigerianRecipient(user);
    const older = await quoteFor(user, "5000");
    await startSend(user);
    const retired = await user.nextEdit(older, { match: /Quote cancelled/ });
    expect(buttons(retired)).toEqual([]);
  });

  it("a confirmed purchase that expires: its quote card loses the copy buttons of the old pay-in account", async () => {
    const user = stack.tg.user({ id: 7633, first_name: "Bola" });
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
    const speed = await user.nextMessage({ match: "Step 2 of 3" });
    await (await user.press(speed, /Fast/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    await user.send("20,000");
    const card = await user.nextMessage({ match: "Your bitcoin quote" });
    await (await user.press(card, "✅ Confirm")).answer();
    const status = await user.nextMessage({ match: "Bitcoin purchase" });
    // Bank-transfer quotes live 10 minutes.
    await stack.advanceClock(11 * 60_000);
    await user.nextEdit(status, { match: /Quote expired/ });
    await expect.poll(() => buttons(current(user, card))).toEqual([]);
  });
});

describe("past the deadline, before the reconciler has looked", () => {
  let stack: Stack;
  beforeAll(async () => {
    // The reconciler stays quiet here, so the user's press reaches a card that still looks live.
    stack = await startStack({ reconcileEveryMs: 60 * 60_000 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("Confirm is refused before any API call, in the user's words, with New quote", async () => {
    const user = stack.tg.user({ id: 7621, first_name: "Ifeoma" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "7000");
    const order = await orderOf(stack, card);
    await stack.advanceClock(SIX_MINUTES);
    const quotes = quoteCount(stack);
    const createQuote = vi.spyOn(stack.app.api, "createQuote");
    const simulate = vi.spyOn(stack.app.api, "simulatePayIn");
    try {
      const refused = await pressAndEdit(user, card, /Confirm/, /This quote expired at/);
      expect(refused.text).toContain(
        `This quote expired at ${formatClock(Date.parse(order.expiresAt), LOCALE, "NG")}`,
      );
      expect(refused.text).toContain("Nothing was charged");
      expect(buttons(refused)).toEqual(["🔁 New quote", "❌ Cancel"]);
      await stack.tg.idle({ quietMs: 300 });
      expect(user.messages().some((message) => /^ln/.test(message.text ?? ""))).toBe(false);
      expect(createQuote).not.toHaveBeenCalled();
      expect(simulate).not.toHaveBeenCalled();
      expect(quoteCount(stack)).toBe(quotes);
      expect((await stack.app.store.orders.get(order.orderId))?.stage).toBe("expired");

      // New quote from the refusal: one quote, a later deadline, payable.
      const fresh = await pressAndEdit(user, refused, /New quote/, /Your quote/);
      expect(createQuote).toHaveBeenCalledTimes(1);
      const second = await orderOf(stack, fresh);
      expect(Date.parse(second.expiresAt)).toBeGreaterThan(Date.parse(order.expiresAt));
      const { status } = await confirmQuote(user, fresh);
      expect(status.text).toContain("Waiting for payment");
    } finally {
      createQuote.mockRestore();
      simulate.mockRestore();
    }
  });

  it("buy: Confirm after the deadline turns the card into 'expired' with New quote, no API call", async () => {
    const user = stack.tg.user({ id: 7623, first_name: "Kemi" });
    await user.send("/buy");
    await user.nextMessage({ match: "Step 1 of 3" });
    await user.send("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
    const speed = await user.nextMessage({ match: "Step 2 of 3" });
    await (await user.press(speed, /Fast/)).answer();
    await user.nextMessage({ match: "Step 3 of 3" });
    await user.send("20,000");
    const card = await user.nextMessage({ match: "Your bitcoin quote" });
    const order = await latestOrder(stack, user.id);
    await stack.advanceClock(11 * 60_000);
    const createQuote = vi.spyOn(stack.app.api, "createQuote");
    try {
      const answer = await (await user.press(card, "✅ Confirm")).answer();
      expect(answer.text).toBe("This quote has expired.");
      const expired = await user.nextEdit(card, { match: /This quote expired/ });
      expect(expired.text).toContain(
        `This quote expired at ${formatClock(Date.parse(order.expiresAt), LOCALE, "NG")}`,
      );
      expect(buttons(expired)).toEqual(["🔁 New quote"]);
      await stack.tg.idle({ quietMs: 300 });
      expect(user.messages().some((message) => /Bitcoin purchase/.test(message.text ?? ""))).toBe(false);
      expect(createQuote).not.toHaveBeenCalled();
      expect((await stack.app.store.orders.get(order.orderId))?.confirmedAt).toBeUndefined();
    } finally {
      createQuote.mockRestore();
    }
  });

  it("🧪 Simulate payment after the deadline answers in our words, with New quote and no API call", async () => {
    const user = stack.tg.user({ id: 7622, first_name: "Chiamaka" });
    await nigerianRecipient(user);
    const { invoice } = await confirmQuote(user, await quoteFor(user, "8000"));
    const order = await latestOrder(stack, user.id);
    await stack.advanceClock(SIX_MINUTES);
    const simulate = vi.spyOn(stack.app.api, "simulatePayIn");
    try {
      await (await user.press(invoice, /Simulate/)).answer();
      const reply = await user.nextMessage({ match: /expired/ });
      expect(reply.text).toBe(
        `⌛ This quote expired at ${formatClock(Date.parse(order.expiresAt), LOCALE, "NG")}, so it can no longer ` +
          "be paid. Nothing was charged. Tap “🔁 New quote” for a fresh price.",
      );
      expect(buttons(reply)).toEqual(["🔁 New quote"]);
      expect(simulate).not.toHaveBeenCalled();
      // The pressed button is gone; nothing raw from the API reached the chat.
      expect(buttons(current(user, invoice))).not.toContain("🧪 Simulate payment");
      expect(user.messages().some((message) => /Invalid quote ID|Sandbox:/.test(message.text ?? ""))).toBe(
        false,
      );
      const fresh = await (async () => {
        await (await user.press(reply, /New quote/)).answer();
        return user.nextMessage({ match: /Your quote/ });
      })();
      expect(fresh.text).toContain("Recipient gets: ₦8,000.00");
    } finally {
      simulate.mockRestore();
    }
  });
});
