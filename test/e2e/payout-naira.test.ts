import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney, toMajorString } from "#src/money/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttons, codeOf, orderOf, pressAndEdit, startSend, typeAndRead } from "./payout-support.ts";

/**
 * Sending from a naira account (NGN→KES/ZAR/GHS by bank transfer): from "How will you pay?" to delivered, one
 * corridor each, against the sandbox's quotes, its pay-in simulation and its NGN DEPOSIT / target WITHDRAWAL events.
 */
describe("payout paid in naira by bank transfer", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function kenyaAmount(user: UserDriver): Promise<Message> {
    const countries = await startSend(user);
    const methods = await pressAndEdit(user, countries, /Kenya/, /How should the money arrive/);
    await pressAndEdit(user, methods, /M-Pesa \/ Airtel phone/, /phone number/);
    const network = await typeAndRead(user, "0790 000 000", /Which wallet/);
    await pressAndEdit(user, network, "✅ M-Pesa", /name/);
    return typeAndRead(user, "Jane Wanjiku", /How much/);
  }

  async function southAfricaAmount(user: UserDriver): Promise<Message> {
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /South Africa/, /Which bank/);
    await typeAndRead(user, "fnb", /account number at FNB/);
    await typeAndRead(user, "6200 123 456", /account holder's name/);
    return typeAndRead(user, "Thandi Nkosi", /How much/);
  }

  async function ghanaAmount(user: UserDriver): Promise<Message> {
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Ghana/, /MTN mobile money number/);
    await typeAndRead(user, "024 765 4321", /name on the MoMo account/);
    return typeAndRead(user, "Ama Mensah", /How much/);
  }

  /** "How will you pay?" on the amount screen: Lightning ticked; 🏦 switches the screen to naira. */
  async function chooseNaira(user: UserDriver, amount: Message): Promise<Message> {
    expect(amount.text).toContain("How will you pay? ⚡ Bitcoin (Lightning)");
    expect(buttons(amount).slice(0, 2)).toEqual(["✅ ⚡ Bitcoin (Lightning)", "🏦 Naira bank transfer"]);
    const naira = await pressAndEdit(user, amount, "🏦 Naira bank transfer", /Naira bank transfer/);
    expect(buttons(naira).slice(0, 2)).toEqual(["⚡ Bitcoin (Lightning)", "✅ 🏦 Naira bank transfer"]);
    return naira;
  }

  function copyTexts(message: Message): string[] {
    return (message.reply_markup?.inline_keyboard.flat() ?? []).flatMap((button) =>
      "copy_text" in button && button.copy_text ? [button.copy_text.text] : [],
    );
  }

  /** The quote card against the sandbox's one quote: every figure is the quote's, to the kobo. */
  async function checkCard(card: Message, quotesBefore: number) {
    const order = await orderOf(stack, card);
    expect(stack.sandbox.state.quotes.size - quotesBefore).toBe(1);
    const quote = stack.sandbox.state.quotes.get(order.quoteId);
    if (!quote?.virtualAccount) throw new Error("no bank-transfer quote at the sandbox");
    expect(quote).toMatchObject({ sourceCurrency: "NGNKOBO", paymentMethod: "BANKTRANSFER", invoice: "" });
    expect(quote.hash).toMatch(/^[0-9a-f]{24}$/);
    expect(order.pay).toEqual({ amount: quote.total, currency: "NGNKOBO" });
    expect(order.fee).toEqual({ amount: quote.feesInSource, currency: "NGNKOBO" });
    expect(order.receive.amount).toBe(quote.amountInTarget);
    const text = card.text ?? "";
    expect(text).toContain(`Transfer exactly: ${formatMoney(quote.total, "NGNKOBO", "en")}`);
    expect(text).toContain(
      `= ${formatMoney(quote.total - quote.feesInSource, "NGNKOBO", "en")} exchanged + ${formatMoney(quote.feesInSource, "NGNKOBO", "en")} fee`,
    );
    expect(text).toContain(`Bank: ${quote.virtualAccount.bankName}`);
    expect(text).toContain(`Account number: ${quote.virtualAccount.accountNumber}`);
    expect(text).toContain("Account name: Mava Digital Solutions Limited");
    expect(text).toMatch(/This price holds for (9|10):\d\d \(until \d\d:\d\d [A-Z]+\)/);
    expect(codeOf(card)).toBe(order.verificationCode);
    expect(order.expiresAt).toBe(new Date(quote.expiresAt).toISOString());
    expect(copyTexts(card)).toEqual([
      quote.virtualAccount.accountNumber,
      toMajorString(quote.total, "NGNKOBO"),
    ]);
    return { order, quote };
  }

  /** Confirm, simulate the transfer, and read the one status card through to "delivered". */
  async function payToDelivered(user: UserDriver, card: Message, orderId: string): Promise<Message> {
    await (await user.press(card, /Confirm/)).answer();
    const status = await user.nextMessage({ match: /Waiting for your transfer/ });
    const confirmed = await user.nextEdit(card, { match: /Confirmed/ });
    // A second tap (an old copy of the card) is told where to pay, never confirmed twice.
    const again = await user.pressData(card, `po-ok:${orderId}`);
    expect((await again.answer()).text).toBe(
      "Already confirmed: transfer to the account shown on the quote.",
    );
    // A recipient typed in can be saved from the confirmed card (a naira payout has no invoice to carry the button).
    expect(buttons(confirmed)).toEqual(["📋 Copy account number", "📋 Copy amount", "💾 Save recipient"]);
    await (await user.press(confirmed, "💾 Save recipient")).answer();
    await user.nextMessage({ match: /Next time, find them in \/recipients/ });
    expect((await stack.app.store.orders.get(orderId))?.recipientId).toBeDefined();
    await expect
      .poll(async () => (await stack.app.store.orders.get(orderId))?.statusMessageId)
      .toBe(status.message_id);
    await (await user.press(status, "🧪 Simulate bank transfer")).answer();
    const done = await user.nextEdit(status, { match: /Completed/ });
    const stages = user
      .events()
      .flatMap((event) =>
        event.kind === "edit" && event.message.message_id === status.message_id ? [event.message.text] : [],
      )
      .map((text) => /\n(⏳|✅|📤|🎉|❌|⌛)[^\n]*/u.exec(text ?? "")?.[0]?.trim());
    expect(stages).toEqual([...new Set(stages)]);
    expect(stages.at(-1)).toMatch(/Completed/);
    expect(stages).toContain("✅ Naira received");
    const transactions = stack.sandbox.state.transactions.filter((tx) => tx.orderId === orderId);
    const order = await stack.app.store.orders.get(orderId);
    expect(transactions.map((tx) => [tx.type, tx.currency, tx.amount])).toEqual([
      ["DEPOSIT", "NGN", order?.pay.amount],
      ["WITHDRAWAL", order?.receive.currency.slice(0, 3), order?.receive.amount],
    ]);
    return done;
  }

  it("Kenya: the amount in shillings, paid in naira, delivered to M-Pesa", async () => {
    const user = stack.tg.user({ id: 7601, first_name: "Chidi" });
    const naira = await chooseNaira(user, await kenyaAmount(user));
    expect(naira.text).toContain("How much should they receive, in <b>shillings</b>".replace(/<\/?b>/g, ""));
    const before = stack.sandbox.state.quotes.size;
    const card = await typeAndRead(user, "1,500", /Your quote/);
    const { order } = await checkCard(card, before);
    expect(card.text).toContain("Recipient gets: KSh 1,500.00");
    expect(card.text).toMatch(/Your rate: ₦1 = KSh 0\.\d+ · KSh 1 = ₦\d+\.\d\d/);
    const done = await payToDelivered(user, card, order.orderId);
    expect(done.text).toContain("KSh 1,500.00 was delivered to M-Pesa ••0000 · Jane Wanjiku");
    const paid = formatMoney(order.pay.amount, "NGNKOBO", "en");
    expect(done.text).toContain(`You pay: ${paid}`);

    // The receipt and /history name the naira paid.
    await (await user.press(done, "🧾 Receipt")).answer();
    const receipt = await user.nextMessage({ match: /Payment receipt/ });
    expect(receipt.text).toContain(
      `Paid: ${paid} (fee included: ${formatMoney(order.fee.amount, "NGNKOBO", "en")})`,
    );
    expect(receipt.text).toMatch(/₦1 = KSh 0\.\d+ · KSh 1 = ₦\d+\.\d\d/);
    await user.send("/history");
    expect((await user.nextMessage({ match: /→/ })).text).toContain(`${paid} → KSh 1,500.00`);

    // Repeating it repeats what the recipient got, paid in naira again until the payer chooses otherwise.
    const offer = await user.nextMessage({ match: /Send this again on a schedule/ });
    await pressAndEdit(user, offer, /Every month/, /Repeat send set up/);
    expect(await stack.app.store.repeats.list(user.id)).toMatchObject([
      { amount: { amount: 150_000, currency: "KESCENT" }, payWith: "naira" },
    ]);
  });

  it("South Africa: 50 rand at least; the amount in rand, paid in naira, delivered to the bank", async () => {
    const user = stack.tg.user({ id: 7602, first_name: "Bola" });
    const naira = await chooseNaira(user, await southAfricaAmount(user));
    expect(naira.text).toContain("Minimum: R 50.00");
    expect((await typeAndRead(user, "R 40")).text).toMatch(/below the minimum of R 50.00/);
    const before = stack.sandbox.state.quotes.size;
    const card = await typeAndRead(user, "R 120", /Your quote/);
    const { order } = await checkCard(card, before);
    expect(card.text).toContain("Recipient gets: R 120.00");
    const done = await payToDelivered(user, card, order.orderId);
    expect(done.text).toContain("R 120.00 was delivered to");
  });

  it("Ghana: the amount typed in naira, paid in naira, delivered to MTN MoMo", async () => {
    const user = stack.tg.user({ id: 7603, first_name: "Emeka" });
    const naira = await chooseNaira(user, await ghanaAmount(user));
    const inNaira = await pressAndEdit(user, naira, /in naira instead/, /How much naira will you transfer/);
    expect(inNaira.text).toContain("The recipient must get at least GH₵ 24.00.");
    // Too little naira for the minimum: the API says so, and the user is asked again.
    expect((await typeAndRead(user, "₦1,000")).text).toMatch(/below the minimum payout once fees are taken/);
    const before = stack.sandbox.state.quotes.size;
    const card = await typeAndRead(user, "₦20,000", /Your quote/);
    const { order, quote } = await checkCard(card, before);
    expect(quote.paymentCurrency).toBe("NGNKOBO");
    expect(order.pay.amount).toBe(2_000_000);
    const done = await payToDelivered(user, card, order.orderId);
    expect(done.text).toContain(
      `${formatMoney(order.receive.amount, "GHSPESEWA", "en")} was delivered to MTN MoMo`,
    );
  });

  it("an expired naira quote cannot be paid: its card turns expired and the transfer is refused", async () => {
    const user = stack.tg.user({ id: 7604, first_name: "Ngozi" });
    await chooseNaira(user, await kenyaAmount(user));
    const card = await typeAndRead(user, "2,000", /Your quote/);
    const order = await orderOf(stack, card);
    await stack.advanceClock(11 * 60_000);
    const expired = await user.nextEdit(card, { match: /expired/ });
    expect(buttons(expired)).not.toContain("✅ Confirm");
    expect(copyTexts(expired)).toEqual([]);
    await expect(
      stack.app.api.simulatePayIn({ quoteId: order.quoteId, currency: "NGN", amount: order.pay.amount }),
    ).rejects.toThrow();
    await expect.poll(async () => (await stack.app.store.orders.get(order.orderId))?.stage).toBe("expired");

    // "New quote" on the card (the flow still open) quotes again in naira, once.
    const quotes = stack.sandbox.state.quotes.size;
    const fresh = await pressAndEdit(user, expired, /New quote/, /Your quote/);
    expect(fresh.text).toContain("Transfer exactly:");
    expect(stack.sandbox.state.quotes.size - quotes).toBe(1);
    const second = await orderOf(stack, fresh);
    expect(second.quoteId).not.toBe(order.quoteId);

    // Confirmed but never paid: the status card expires on the API's clock and the transfer is refused.
    await (await user.press(fresh, /Confirm/)).answer();
    const status = await user.nextMessage({ match: /Waiting for your transfer/ });
    await stack.advanceClock(11 * 60_000);
    const lapsed = await user.nextEdit(status, { match: /No transfer arrived before/ });
    await expect(
      stack.app.api.simulatePayIn({ quoteId: second.quoteId, currency: "NGN", amount: second.pay.amount }),
    ).rejects.toThrow();
    // Its "New quote" (the flow long over) opens the naira amount screen for the same recipient; ⚡ goes back.
    await (await user.press(lapsed, /New quote/)).answer();
    const again = await user.nextMessage({ match: /How much should they receive/ });
    expect(again.text).toContain("How will you pay? 🏦 Naira bank transfer");
    expect(again.text).toContain("To: M-Pesa ••0000 · Jane Wanjiku");
    const lightning = await pressAndEdit(user, again, "⚡ Bitcoin (Lightning)", /How will you pay\? ⚡/);
    expect(buttons(lightning)).toContain("⚡ Type the amount in sats instead");
  });

  it("a daily limit holds in both currencies: refused in cedis before any quote, in naira once quoted", async () => {
    await stack.app.store.settings.setDailyLimit("GH", 10_000);
    try {
      const user = stack.tg.user({ id: 7605, first_name: "Yaw" });
      await chooseNaira(user, await ghanaAmount(user));
      const quotes = stack.sandbox.state.quotes.size;
      expect((await typeAndRead(user, "GH₵ 150")).text).toMatch(
        /more than you can still send to Ghana today/,
      );
      expect(stack.sandbox.state.quotes.size).toBe(quotes);
      const naira = user.lastMessage();
      if (!naira) throw new Error("no amount screen");
      await pressAndEdit(user, naira, /in naira instead/, /How much naira/);
      expect((await typeAndRead(user, "₦30,000")).text).toMatch(
        /more than you can still send to Ghana today/,
      );
      const card = await typeAndRead(user, "GH₵ 50", /Your quote/);
      expect(card.text).toContain("Daily limit: GH₵ 50.00 left of GH₵ 100.00 after this payout");
    } finally {
      await stack.app.store.settings.setDailyLimit("GH", undefined);
    }
  });

  it("a naira quote whose answer is lost: Try again reads the API back and adopts that quote, never a second", async () => {
    const fault = (body?: Record<string, unknown>) =>
      fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
        method: body ? "POST" : "DELETE",
        headers: { "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const user = stack.tg.user({ id: 7606, first_name: "Funke" });
    await chooseNaira(user, await kenyaAmount(user));
    await fault({ endpoint: "POST /quote", mode: "500-after" });
    await fault({ endpoint: "GET /order/all", mode: "500", times: 1_000 });
    const before = stack.sandbox.state.quotes.size;
    try {
      const problem = await typeAndRead(user, "1,500", /could not confirm whether your quote was created/);
      expect(buttons(problem)).toEqual(["🔄 Try again", "✏️ Change amount", "❌ Cancel"]);
      expect(stack.sandbox.state.quotes.size - before).toBe(1);

      // Still unreadable: the same honest answer stays, and nothing new at the API.
      await (await user.press(problem, /Try again/)).answer();
      await stack.tg.idle();
      expect(user.message(problem.message_id)?.text).toMatch(
        /could not confirm whether your quote was created/,
      );
      expect(stack.sandbox.state.quotes.size - before).toBe(1);

      await fault();
      const card = await pressAndEdit(user, problem, /Try again/, /Your quote/);
      const { quote } = await checkCard(card, before);
      expect(quote.customerReference).toMatch(/^tg-/);
      expect(card.text).toContain("Recipient gets: KSh 1,500.00");
    } finally {
      await fault();
    }
  });
});
