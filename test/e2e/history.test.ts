import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CurrencyCode, formatClock, formatDateTime, formatMoney } from "#src/money/index.js";
import type { NewOrder, OrderRecord } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const NG_BENEFICIARY = {
  bankAccountNumber: "0149200000",
  bankAccountName: "RICKI TESTER",
  bankCode: "000013",
  bankName: "GTBANK PLC",
};

/** A real buy through the bot: quote and confirm (its status card is the order's first history entry). */
async function realBuy(user: UserDriver): Promise<Message> {
  await user.send("/buy");
  await user.nextMessage({ match: "Step 1 of 3" });
  await user.send(TESTNET_ADDRESS);
  await (await user.press(await user.nextMessage({ match: "Step 2 of 3" }), /Fast/)).answer();
  await user.nextMessage({ match: "Step 3 of 3" });
  await user.send("40000");
  const quote = await user.nextMessage({ match: "Your bitcoin quote" });
  await (await user.press(quote, "✅ Confirm")).answer();
  return user.nextMessage({ match: "Bitcoin purchase" });
}

let seq = 0;
function record(userId: number, overrides: Partial<NewOrder> = {}): NewOrder {
  seq += 1;
  return {
    orderId: `9${String(seq).padStart(4, "0")}-${String(userId).slice(-4)}`,
    quoteId: `quote-${userId}-${seq}`,
    hash: `hash-${userId}-${seq}`,
    kind: "payout",
    corridor: "KE",
    chatId: userId,
    userId,
    pay: { amount: 12_000 + seq, currency: "BTCSAT" },
    receive: { amount: 150_000, currency: "KESCENT" },
    fee: { amount: 60, currency: "BTCSAT" },
    recipientLabel: "M-Pesa ••0000 · Jane Wanjiku",
    verificationCode: "🦊🍋",
    expiresAt: new Date(Date.now() + 5 * 60_000).toISOString(),
    stage: "completed",
    ...overrides,
  };
}

const buttons = (message: Message) =>
  message.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];

describe("/history", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("explains an empty history", async () => {
    const user = stack.tg.user({ id: 7400, language_code: "en" });
    await user.send("/history");
    expect((await user.nextMessage()).text).toContain("You have no orders yet");
  });

  it("pages newest first, 5 per page, editing in place; details and send again", async () => {
    const user = stack.tg.user({ id: 7401, language_code: "en" });
    await realBuy(user);
    const store = stack.app.store;
    // A payout whose beneficiary was snapshotted but never saved, and an old record with an unmasked number.
    const payout = await store.orders.create(
      record(user.id, {
        corridor: "NG",
        pay: { amount: 7_500, currency: "BTCSAT" },
        receive: { amount: 1_000_000, currency: "NGNKOBO" },
        recipientLabel: "GTBANK PLC ••0000 · RICKI TESTER",
        beneficiary: NG_BENEFICIARY,
      }),
    );
    await store.orders.create(
      record(user.id, { recipientLabel: "ACCESS BANK 0123456789", corridor: "NG", stage: "failed" }),
    );
    for (let index = 0; index < 4; index += 1)
      await store.orders.create(record(user.id, { corridor: index % 2 ? "ZA" : "GH" }));
    const all = await store.orders.listForUser(user.id, 0, 10);
    expect(all.total).toBe(7);
    user.consumeAll();

    await user.send("/history");
    const page = await user.nextMessage({ match: "Your orders" });
    const text = page.text ?? "";
    expect(text).toContain("Your orders (1–5 of 7)");
    // Newest first, exactly as stored: the pay amounts are unique per order.
    const shownPays = [...text.matchAll(/^(.+) → .+$/gm)].map((match) => match[1]);
    expect(shownPays).toEqual(
      all.orders
        .slice(0, 5)
        .map((order) => formatMoney(order.pay.amount, order.pay.currency as CurrencyCode, "en-NG")),
    );
    expect(text).not.toContain("0123456789");
    expect(text).toContain("ACCESS BANK ******6789");
    expect(text).toMatch(
      /1\. 🇿🇦 💸 \d{1,2} \w{3} \d{4}, \d{2}:\d{2} SAST\n12,006 sats → KSh 1,500\.00\nM-Pesa ••0000 · Jane Wanjiku · 🎉 completed/,
    );
    expect(text).toContain("🎉 completed");
    expect(text).toContain("❌ failed");
    expect(buttons(page)).toEqual(expect.arrayContaining(["🔎 1", "🔎 5", "▶"]));
    expect(buttons(page)).not.toContain("◀");

    await (await user.press(page, "▶")).answer();
    const second = await user.nextEdit(page);
    expect(second.message_id).toBe(page.message_id);
    expect(second.text).toContain("Your orders (6–7 of 7)");
    expect(second.text).toContain("6. 🇳🇬 💸");
    expect(second.text).toContain("7,500 sats → ₦10,000.00\nGTBANK PLC ••0000 · RICKI TESTER · 🎉 completed");
    // The real buy, oldest, is last: amounts both sides, the shortened address, its stage.
    expect(second.text).toMatch(
      /7\. 🇳🇬 ₿ .*\n₦40,000\.00 → [\d,]+ sats\ntb1qw5…jzsx · ⏳ waiting for payment/,
    );
    expect(buttons(second)).toEqual(expect.arrayContaining(["◀", "🔎 6", "🔎 7"]));
    expect(buttons(second)).not.toContain("▶");
    expect(buttons(second).filter((label) => label.startsWith("🔁"))).toHaveLength(1);

    await (await user.press(second, "🔎 7")).answer();
    const card = await user.nextMessage({ match: "Bitcoin purchase" });
    expect(card.text).toContain("Waiting for payment");
    expect(buttons(card)).toContain("🔄 Refresh");

    // Send again: the snapshotted beneficiary is saved, linked to the order, and the payout flow opens at the amount.
    const againLabel = buttons(second).find((label) => label.startsWith("🔁")) ?? "";
    const press = await user.press(second, againLabel);
    expect((await press.answer()).text).toBe("Opening…");
    const amountPrompt = await user.nextMessage({ match: "How much should they receive" });
    expect(amountPrompt.text).toContain("GTBANK PLC ••0000 · RICKI TESTER");
    const saved = await store.recipients.list(user.id);
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ corridor: "NG", method: "ngn_bank", details: NG_BENEFICIARY });
    expect((await store.orders.get(payout.orderId))?.recipientId).toBe(saved[0]?.id);
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });

    await (await user.press(second, "◀")).answer();
    expect((await user.nextEdit(page)).text).toContain("Your orders (1–5 of 7)");
  });

  it("shows each user only their own orders", async () => {
    const owner = stack.tg.user({ id: 7402, language_code: "en" });
    const other = stack.tg.user({ id: 7403, language_code: "en" });
    const order = await stack.app.store.orders.create(
      record(owner.id, { beneficiary: NG_BENEFICIARY, corridor: "NG" }),
    );
    await owner.send("/history");
    const page = await owner.nextMessage({ match: "Your orders" });
    expect(page.text).toContain("Your orders (1–1 of 1)");
    const view = page.reply_markup?.inline_keyboard.flat().find((button) => button.text === "🔎 1");
    // Buttons carry the short order id only, never data.
    expect(view && "callback_data" in view ? view.callback_data : "").toBe(`hist:view:${order.orderId}`);
    await other.send("/history");
    expect((await other.nextMessage()).text).toContain("You have no orders yet");
  });

  it("shows every time in the user's clock: the most recent corridor's by default, then the one picked", async () => {
    const user = stack.tg.user({ id: 7420, language_code: "en" });
    const store = stack.app.store;
    const created: OrderRecord[] = [];
    for (const corridor of ["KE", "NG", "GH", "ZA"] as const) {
      created.push(await store.orders.create(record(user.id, { corridor })));
    }
    const timesIn = (clock: "ZA" | "KE") =>
      created.map((order) => formatDateTime(Date.parse(order.createdAt), "en-NG", clock)).reverse();
    const shownTimes = (text: string) =>
      [...text.matchAll(/^\d+\. \S+ \S+ (.+)$/gm)].map((match) => match[1]);

    // Nothing chosen: the clock of the most recent order's corridor (ZA), for every line, newest first.
    await user.send("/history");
    const byDefault = (await user.nextMessage({ match: "Your orders" })).text ?? "";
    expect(byDefault).toContain("🕒 Times in SAST · change with /language");
    expect(shownTimes(byDefault)).toEqual(timesIn("ZA"));

    // The picker under /language shows each clock's time now; the user taps Kenya's.
    await user.send("/language");
    const picker = await user.nextMessage({ match: "Choose your language" });
    expect(picker.text).toContain("times in /history are shown in the zone you pick here");
    const clockButtons = buttons(picker).filter((label) => /\d{2}:\d{2}/.test(label));
    expect(clockButtons).toEqual([
      expect.stringMatching(/^🇳🇬 \d{2}:\d{2} WAT$/),
      expect.stringMatching(/^🇰🇪 \d{2}:\d{2} EAT$/),
      expect.stringMatching(/^✅ 🇿🇦 \d{2}:\d{2} SAST$/),
      expect.stringMatching(/^🇬🇭 \d{2}:\d{2} GMT$/),
    ]);
    const press = await user.press(picker, /🇰🇪/);
    expect((await press.answer()).text).toMatch(/^Clock set: \d{2}:\d{2} EAT$/);
    const marked = await user.nextEdit(picker);
    expect(buttons(marked)).toContainEqual(expect.stringMatching(/^✅ 🇰🇪/));
    expect((await store.users.get(user.id))?.clock).toBe("KE");

    await user.send("/history");
    const chosen = (await user.nextMessage({ match: "Your orders" })).text ?? "";
    expect(chosen).toContain("🕒 Times in EAT · change with /language");
    expect(shownTimes(chosen)).toEqual(timesIn("KE"));
  });

  it("after the API's clock moves on (local mode's :advance), a new order is listed at the API's time, as its card", async () => {
    const user = stack.tg.user({ id: 7430, language_code: "en" });
    // Three days and two hours ahead of this host: a different date and a different time of day.
    await stack.advanceClock((3 * 24 + 2) * 3_600_000);
    const before = stack.sandbox.now();
    const card = await realBuy(user);
    const after = stack.sandbox.now();
    const order = (await stack.app.store.orders.listForUser(user.id, 0, 1)).orders[0];
    const created = Date.parse(order?.createdAt ?? "");
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(after);

    await user.send("/history");
    const text = (await user.nextMessage({ match: "Your orders" })).text ?? "";
    const shown = /^1\. \S+ \S+ (.+)$/m.exec(text)?.[1];
    // The sandbox's time when the order was made (the minute may have turned while it was made).
    expect([before, after].map((ms) => formatDateTime(ms, "en-NG", "NG"))).toContain(shown);
    // The card's deadline is on the same clock: the quote's lifetime after the time /history lists.
    const deadline = Date.parse(order?.expiresAt ?? "");
    expect(card.text).toContain(`before ${formatClock(deadline, "en-NG", "NG")}`);
    const minutes = (clock: string) => {
      const [hours, mins] = clock.split(":").map(Number);
      return (hours ?? 0) * 60 + (mins ?? 0);
    };
    const listedAt = /(\d{2}:\d{2}) WAT$/.exec(shown ?? "")?.[1] ?? "";
    const cardAt = /before (\d{2}:\d{2}) WAT/.exec(card.text ?? "")?.[1] ?? "";
    const apart = (minutes(cardAt) - minutes(listedAt) + 24 * 60) % (24 * 60);
    expect(apart).toBeGreaterThanOrEqual(9);
    expect(apart).toBeLessThanOrEqual(11);
  });
});
