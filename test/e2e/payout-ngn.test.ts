import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoiceQrPng } from "#src/bot/payout/invoice.js";
import { CompressedRedisStorage } from "#src/store/compressed-storage.js";
import { type Stack, startStack } from "../support/stack.ts";
import {
  buttons,
  codeOf,
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

describe("payout to a Nigerian bank account", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("shows every corridor with its methods and minimum before anything is typed", async () => {
    const user = stack.tg.user({ id: 7000, first_name: "Bola" });
    const countries = await startSend(user);
    expect(countries.text).toContain("Nigeria · bank account · minimum ₦2,000.00");
    // Sandbox prices: 130 KES, 18 ZAR and 12 GHS per USD → 2 USD each.
    expect(countries.text).toContain("Kenya · M-Pesa phone, paybill or till · minimum KSh 260.00");
    expect(countries.text).toContain("South Africa · bank account · minimum R 36.00");
    expect(countries.text).toContain("Ghana · MTN mobile money · minimum GH₵ 24.00");
    expect(buttons(countries)).toEqual([
      "🇳🇬 Nigeria · Bank",
      "🇰🇪 Kenya · M-Pesa · Paybill · Till",
      "🇿🇦 South Africa · Bank",
      "🇬🇭 Ghana · MTN MoMo",
      "❌ Cancel",
    ]);
    // Typing instead of choosing: a hint, and the screen still works.
    expect((await typeAndRead(user, "nigeria please")).text).toMatch(/choose one of the buttons/);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });
  });

  it("pays a verified account to completion: quote, QR invoice, status card edited by the pipeline", async () => {
    const ada = stack.tg.user({ id: 7001, first_name: "Ada" });
    const amountPrompt = await nigerianRecipient(ada);
    expect(amountPrompt.text).toContain("To: GTBANK PLC ••0000 · OLADEJI OLAOLU");
    expect(amountPrompt.text).toContain("Minimum: ₦2,000.00");

    const card = await quoteFor(ada, "10,000");
    // Sandbox: 150,000,000 NGN per BTC, 1% fee and 0.3% spread on BTC→NGN. The card shows the rate the user
    // gets (₦10,000 for the 6,687 sats exchanged), so its lines add up.
    expect(card.text).toContain("You pay: 6,754 sats\n   = 6,687 sats exchanged + 67 sats fee");
    expect(card.text).toContain("Recipient gets: ₦10,000.00");
    expect(card.text).toContain("Your rate: 1 BTC = ₦149,543,891.13 (exchange margin included)");
    expect(card.text).toContain("To: OLADEJI OLAOLU ✅ verified by the bank");
    expect(card.text).toContain("GTBANK PLC ••0000");
    expect(card.text).toMatch(/holds for [45]:\d\d/);
    expect(buttons(card)).toEqual(["✅ Confirm", "🔄 Refresh quote", "❌ Cancel"]);
    const code = codeOf(card);

    const order = await orderOf(stack, card);
    expect(order).toMatchObject({
      stage: "awaiting_payment",
      quoteMessageId: card.message_id,
      corridor: "NG",
    });
    expect(order.verificationCode).toBe(code);
    const quote = stack.sandbox.state.quotes.get(order.quoteId);
    // The beneficiary is exactly what name enquiry returned, with the bank list's name.
    expect(quote?.beneficiary).toMatchObject({
      bankAccountNumber: "0149200000",
      bankAccountName: "OLADEJI OLAOLU",
      bankCode: "000013",
      bankName: "GTBANK PLC",
    });
    expect(quote).toMatchObject({ paymentCurrency: "NGNKOBO", amountInTarget: 1_000_000, autopayout: true });
    expect(quote?.customerReference).toMatch(/^tg-[0-9a-f]{24}$/);

    const { photo, invoice, status } = await confirmQuote(ada, card);
    expect(buttons(current(ada, card))).toEqual([]);
    expect(current(ada, card).text).toContain("Confirmed");
    expect(photo.caption).toContain("Pay 6,754 sats");
    expect(photo.caption).toContain(`code ${code}`);
    const fileId = photo.photo?.at(-1)?.file_id ?? "";
    const png = stack.tg.fileBytes(fileId);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.equals(await invoiceQrPng(quote?.invoice ?? ""))).toBe(true);
    expect(invoice.text).toContain(quote?.invoice);
    expect(invoice.entities?.some((entity) => entity.type === "code")).toBe(true);
    expect(buttons(invoice)).toEqual(["🧪 Simulate payment", "💾 Save recipient"]);
    expect(JSON.stringify(invoice.reply_markup)).not.toContain("lightning:");

    await expect
      .poll(() => stack.app.store.orders.get(order.orderId))
      .toMatchObject({ statusMessageId: status.message_id, invoiceMessageId: photo.message_id });
    expect((await stack.app.store.orders.get(order.orderId))?.confirmedAt).toBeDefined();

    const simulate = await ada.press(invoice, /Simulate/);
    expect((await simulate.answer()).text).toMatch(/Simulating/);
    const done = await ada.nextEdit(status, { match: /Completed/ });
    expect(done.text).toContain("₦10,000.00 was delivered to GTBANK PLC ••0000 · OLADEJI OLAOLU");
    expect(buttons(current(ada, invoice))).toEqual(["💾 Save recipient"]);
    expect((await stack.app.store.orders.get(order.orderId))?.stage).toBe("completed");

    // The receipt: a message of its own, without buttons, to forward to the recipient.
    expect(buttons(done)).toEqual(["🧾 Receipt"]);
    const receiptPress = await ada.press(done, /Receipt/);
    expect((await receiptPress.answer()).text).toMatch(/forward it/);
    const receipt = await ada.nextMessage({ match: /Payment receipt/ });
    expect(receipt.text).toContain(`Order ${order.orderId} · ✅ Completed`);
    expect(receipt.text).toContain("Recipient: GTBANK PLC ••0000 · OLADEJI OLAOLU");
    expect(receipt.text).toContain("Amount delivered: ₦10,000.00");
    expect(receipt.text).toMatch(/Paid: [\d,]+ sats \(fee included: [\d,]+ sats\)/);
    const completedOrder = await stack.app.store.orders.get(order.orderId);
    expect(receipt.text).toContain(`NIP session ID: ${completedOrder?.payoutReference}`);
    expect(receipt.text).toContain(`Sent with @${stack.app.bot.botInfo.username}`);
    expect(receipt.reply_markup).toBeUndefined();
  });

  it("goes on as a fresh conversation once the recipient is chosen; Change recipient hands over again", async () => {
    const tunde = stack.tg.user({ id: 7010, first_name: "Tunde" });
    const storage = new CompressedRedisStorage<{
      state: Record<string, Array<{ args?: string; replay: { send: unknown[] } }>>;
    }>(stack.redis);
    /** The payout conversation as stored once the update that showed `screen` is acknowledged. */
    const payoutState = async (screen: number) => {
      let stored: { args: unknown[]; operations: number } | undefined;
      // The chat's state is written with the update's acknowledgement, just after Telegram has the screen.
      await expect
        .poll(async () => {
          const [state, ...others] = (await storage.read(`conv:${tunde.id}`))?.state.payout ?? [];
          if (!state || others.length > 0) return undefined;
          const args = JSON.parse(state.args ?? "[]") as Array<{ resume?: { screen?: { id?: number } } }>;
          stored = { args, operations: state.replay.send.length };
          return args[0]?.resume?.screen?.id;
        })
        .toBe(screen);
      return stored!;
    };

    const amountPrompt = await nigerianRecipient(tunde);
    // The country, bank, account and name steps are not in the log the amount and quote steps replay: only the
    // press that entered it, the amount screen and the wait for the amount.
    const first = await payoutState(amountPrompt.message_id);
    expect(first.operations).toBeLessThanOrEqual(3);
    expect(first.args[0]).toMatchObject({
      resume: {
        draft: { country: "NG", beneficiary: { bankCode: "000013", bankAccountNumber: "0149200000" } },
        screen: { id: amountPrompt.message_id, keyboard: true },
      },
    });

    // Back to the countries on the same screen, another recipient, and the flow hands over again.
    const countries = await pressAndEdit(tunde, amountPrompt, /Change recipient/, /Where does it go/);
    expect(countries.message_id).toBe(amountPrompt.message_id);
    await pressAndEdit(tunde, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(tunde, "access", /Banks matching/);
    await pressAndEdit(tunde, results, /ACCESS BANK/, /10-digit account number/);
    const confirm = await typeAndRead(tunde, "0149200000", /belongs to/);
    const again = await pressAndEdit(tunde, confirm, /Yes, that's them/, /How much/);
    expect(again.text).toContain("ACCESS BANK");
    const second = await payoutState(again.message_id);
    expect(second.operations).toBeLessThanOrEqual(3);
    expect(second.args[0]).toMatchObject({
      resume: { draft: { beneficiary: { bankAccountNumber: "0149200000" } } },
    });

    // The fresh conversation takes the rest of the journey: the quote, Confirm, the invoice.
    const card = await quoteFor(tunde, "10,000");
    expect(card.text).toContain("ACCESS BANK");
    const { invoice, status } = await confirmQuote(tunde, card);
    expect(invoice.text).toMatch(/ln/);
    expect(status.text).toMatch(/Waiting for payment/);
  });

  it("saves the recipient; the deep link send_<token> opens a pre-filled payout for its owner only", async () => {
    const ada = stack.tg.user({ id: 7002, first_name: "Ada" });
    await nigerianRecipient(ada);
    const { invoice } = await confirmQuote(ada, await quoteFor(ada, "5000"));
    const save = await ada.press(invoice, /Save recipient/);
    expect((await save.answer()).text).toMatch(/saved/i);
    const saved = await ada.nextMessage({ match: /Saved/ });
    const [recipient] = await stack.app.store.recipients.list(7002);
    expect(recipient).toMatchObject({
      corridor: "NG",
      method: "ngn_bank",
      label: "GTBANK PLC ••0000 · OLADEJI OLAOLU",
      details: {
        bankAccountNumber: "0149200000",
        bankAccountName: "OLADEJI OLAOLU",
        bankCode: "000013",
        bankName: "GTBANK PLC",
      },
    });
    const token = recipient?.token ?? "";
    expect(saved.text).toContain(`?start=send_${token}`);
    expect(buttons(current(ada, invoice))).toEqual(["🧪 Simulate payment"]);

    await ada.send(`/start send_${token}`);
    const amountPrompt = await ada.nextMessage({ match: /How much/ });
    expect(amountPrompt.text).toContain("To: GTBANK PLC ••0000 · OLADEJI OLAOLU");
    const card = await quoteFor(ada, "2500");
    const order = await orderOf(stack, card);
    expect(order.recipientId).toBe(recipient?.id);
    expect(stack.sandbox.state.quotes.get(order.quoteId)?.beneficiary).toMatchObject({
      bankAccountNumber: "0149200000",
    });
    const { invoice: second } = await confirmQuote(ada, card);
    expect(buttons(second)).toEqual(["🧪 Simulate payment"]);

    // Someone else's token, or a made-up one: a calm note and a fresh start.
    const eve = stack.tg.user({ id: 7003, first_name: "Eve" });
    await eve.send(`/start send_${token}`);
    const fresh = await eve.nextMessage();
    expect(fresh.text).toMatch(/no longer valid/);
    expect(fresh.text).toMatch(/Where does it go/);
    await eve.send("/start");
    expect((await eve.nextMessage()).text).toMatch(/Hi Eve/);
  });

  it("a double-tapped Confirm gives one quote and one invoice", async () => {
    const kemi = stack.tg.user({ id: 7004, first_name: "Kemi" });
    await nigerianRecipient(kemi);
    const card = await quoteFor(kemi, "3000");
    const quotes = quoteCount(stack);
    const first = await kemi.press(card, /Confirm/);
    const second = await kemi.press(card, /Confirm/);
    expect((await first.answer()).text).toMatch(/Getting your invoice/);
    expect((await second.answer()).text).toMatch(/Already confirmed/);
    await kemi.nextMessage({ match: /Waiting for payment/ });
    await stack.tg.idle();
    expect(quoteCount(stack)).toBe(quotes);
    expect(kemi.events().filter((event) => event.kind === "message" && event.message.photo)).toHaveLength(1);
    expect(
      kemi.events().filter((event) => event.kind === "message" && /^ln/.test(event.message.text ?? "")),
    ).toHaveLength(1);
  });

  it("a failed payout (account ending 999) ends on a failed card saying what happens next", async () => {
    const tunde = stack.tg.user({ id: 7005, first_name: "Tunde" });
    await nigerianRecipient(tunde, { account: "0123456999" });
    const { invoice, status } = await confirmQuote(tunde, await quoteFor(tunde, "4000"));
    await (await tunde.press(invoice, /Simulate/)).answer();
    const failed = await tunde.nextEdit(status, { match: /Failed/ });
    expect(failed.text).toMatch(/transfer to the recipient failed/);
    expect(failed.text).toMatch(/held for you: tap “Get my sats back”/);
    // No SUPPORT_CONTACT configured: the operator is named instead of a "support" nobody can reach.
    expect(failed.text).toMatch(/when you contact the operator of this bot/);
    expect(buttons(failed)).toEqual(["💸 Get my sats back"]);
  });

  it("bank search and account number: each bad input gets its message and the step goes on", async () => {
    const user = stack.tg.user({ id: 7006, first_name: "Ngozi" });
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    expect((await typeAndRead(user, "qqqzzz")).text).toMatch(/No bank matches “qqqzzz”/);
    const results = await typeAndRead(user, "first bank", /Banks matching/);
    expect(buttons(results)[0]).toBe("FIRST BANK OF NIGERIA");
    const search = await pressAndEdit(user, results, /Search again/, /Which bank/);
    const kuda = await pressAndEdit(
      user,
      search,
      "Kuda",
      /10-digit account number at KUDA MICROFINANCE BANK/,
    );
    expect(buttons(kuda)).toContain("🏦 Choose another bank");
    expect((await typeAndRead(user, "12345")).text).toMatch(/exactly 10 digits; you sent 5/);
    expect((await typeAndRead(user, "0149-2OO-000")).text).toMatch(/digits only/);
    const again = await typeAndRead(user, "0000000000");
    expect(again.text).toMatch(/KUDA MICROFINANCE BANK has no account 0000000000/);
    expect(again.text).toMatch(/10-digit account number/);
    const bankAgain = await pressAndEdit(user, again, /Choose another bank/, /Which bank/);
    const gtb = await pressAndEdit(user, bankAgain, "GTBank", /account number at GTBANK PLC/);
    expect(gtb.message_id).toBe(again.message_id);
    const confirm = await typeAndRead(user, "0149 200 000", /belongs to/);
    expect((await typeAndRead(user, "yes")).text).toMatch(/choose one of the buttons/);
    await pressAndEdit(user, confirm, /Change/, /10-digit account number at GTBANK PLC/);
    const retry = await typeAndRead(user, "1111111111", /could not confirm/);
    expect(buttons(retry)).toEqual(["🔄 Try again", "✏️ Another account", "❌ Cancel"]);
    // The sandbox fails this account every time: Try again asks again and lands on the same screen.
    await (await user.press(retry, /Try again/)).answer();
    await stack.tg.idle();
    expect(current(user, retry).text).toMatch(/could not confirm/);
    await pressAndEdit(user, retry, /Another account/, /10-digit account number/);
    await typeAndRead(user, "0149200000", /OLADEJI OLAOLU/);
    await user.send("/cancel");
    expect((await user.nextMessage({ match: /Cancelled/ })).text).toContain("your payout in progress");
  });

  it("a bank code the API refuses sends the user back to choosing the bank", async () => {
    // A stale cached list: the bank is gone from the API's registry.
    const cached = JSON.parse((await stack.redis.get("payout:cache:banks:NG")) ?? "[]") as unknown[];
    await stack.redis.set(
      "payout:cache:banks:NG",
      JSON.stringify([...cached, { bankName: "GHOST MICROFINANCE BANK", nipBankCode: "999998" }]),
    );
    const user = stack.tg.user({ id: 7007, first_name: "Musa" });
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(user, "ghost", /Banks matching/);
    await pressAndEdit(user, results, "GHOST MICROFINANCE BANK", /account number/);
    const back = await typeAndRead(user, "0149200000", /was not accepted/);
    expect(back.text).toMatch(/Which bank/);
    expect(buttons(back)).toContain("GTBank");
  });
});

describe("name enquiry rate limit", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { nameEnquiryPerMinute: 1 } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("says how long to wait and retries on the button", async () => {
    const user = stack.tg.user({ id: 7101, first_name: "Sade" });
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(user, "gtb", /Banks matching/);
    await pressAndEdit(user, results, "GTBANK PLC", /account number/);
    const confirm = await typeAndRead(user, "0149200000", /belongs to/);
    await pressAndEdit(user, confirm, /Change/, /account number/);
    const limited = await typeAndRead(user, "0123456789", /Too many account checks/);
    expect(limited.text).toMatch(/wait \d+ seconds/);
    await stack.advanceClock(61_000);
    const named = await pressAndEdit(user, limited, /Try again/, /belongs to/);
    expect(named.text).toMatch(/0123456789/);
  });
});
