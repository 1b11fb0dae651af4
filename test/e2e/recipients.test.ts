import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payoutCountryData } from "#src/bot/payout/callback-data.js";
import { type Stack, startStack } from "../support/stack.ts";
import { confirmQuote, nigerianRecipient, pressAndEdit, quoteFor } from "./payout-support.ts";

const NG_BENEFICIARY = {
  bankAccountNumber: "0149200000",
  bankAccountName: "RICKI TESTER",
  bankCode: "000013",
  bankName: "GTBANK PLC",
};
const KE_BENEFICIARY = {
  identifierType: "paytophone",
  identifiers: { phoneNumber: "+254790000000", accountName: "Jane Wanjiku", network: "mpesa" },
};

const rows = (message: Message) => message.reply_markup?.inline_keyboard ?? [];
const buttons = (message: Message) => rows(message).flat();

describe("/recipients", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("explains how recipients get saved when there are none", async () => {
    const user = stack.tg.user({ id: 7500, language_code: "en" });
    await user.send("/recipients");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("You have no saved recipients yet");
    expect(reply.text).toContain("Save recipient");
  });

  it("lists masked recipients with Send again, a share link and Delete", async () => {
    const user = stack.tg.user({ id: 7501, language_code: "en" });
    const { recipients } = stack.app.store;
    const ng = await recipients.save({
      userId: user.id,
      corridor: "NG",
      method: "ngn_bank",
      label: "GTBANK PLC ••0000 · RICKI TESTER",
      details: NG_BENEFICIARY,
    });
    // An older record whose label kept the full phone number: masked on display.
    const ke = await recipients.save({
      userId: user.id,
      corridor: "KE",
      method: "kes_phone",
      label: "M-Pesa +254790000000 · Jane Wanjiku",
      details: KE_BENEFICIARY,
    });

    await user.send("/start");
    await (await user.press(await user.nextMessage(), "👥 Recipients")).answer();
    const list = await user.nextMessage({ match: "Saved recipients" });
    expect(list.text).toContain("🇳🇬 GTBANK PLC ••0000 · RICKI TESTER");
    expect(list.text).toContain("🇰🇪 M-Pesa +********0000 · Jane Wanjiku");
    expect(list.text).not.toContain("254790000000");

    const share = buttons(list).filter((button) => "url" in button);
    expect(share.map((button) => ("url" in button ? button.url : ""))).toEqual(
      expect.arrayContaining([
        `https://t.me/${stack.tg.bot.username}?start=send_${ng.token}`,
        `https://t.me/${stack.tg.bot.username}?start=send_${ke.token}`,
      ]),
    );
    for (const button of buttons(list)) {
      if ("callback_data" in button)
        expect(Buffer.byteLength(button.callback_data ?? "")).toBeLessThanOrEqual(64);
    }

    // Send again: the payout flow opens at the amount step for that recipient.
    const row = rows(list).find((candidate) =>
      candidate.some((button) => "url" in button && button.url.endsWith(ng.token)),
    );
    const send = row?.find((button) => button.text.startsWith("💸"));
    expect((await (await user.press(list, send?.text ?? "")).answer()).text).toBe("Opening…");
    const amount = await user.nextMessage({ match: "How much should they receive" });
    expect(amount.text).toContain("GTBANK PLC ••0000 · RICKI TESTER");
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });

    // The share link (a deep link) opens the same step.
    await user.send(`/start send_${ke.token}`);
    expect((await user.nextMessage({ match: "How much should they receive" })).text).toContain(
      "Jane Wanjiku",
    );
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });
  });

  it("deletes only after confirmation", async () => {
    const user = stack.tg.user({ id: 7502, language_code: "en" });
    const { recipients } = stack.app.store;
    const ng = await recipients.save({
      userId: user.id,
      corridor: "NG",
      method: "ngn_bank",
      label: "GTBANK PLC ••0000 · RICKI TESTER",
      details: NG_BENEFICIARY,
    });
    await recipients.save({
      userId: user.id,
      corridor: "KE",
      method: "kes_phone",
      label: "M-Pesa ••0000 · Jane Wanjiku",
      details: KE_BENEFICIARY,
    });
    await user.send("/recipients");
    const list = await user.nextMessage({ match: "Saved recipients" });
    const deleteNg = buttons(list).find(
      (button) => "callback_data" in button && button.callback_data === `rcp:del:${ng.id}`,
    );

    await (await user.press(list, deleteNg?.text ?? "")).answer();
    const ask = await user.nextEdit(list);
    expect(ask.text).toContain("Delete this saved recipient?");
    expect(ask.text).toContain("GTBANK PLC ••0000 · RICKI TESTER");
    await (await user.press(ask, "◀ Keep it")).answer();
    expect((await user.nextEdit(list)).text).toContain("Saved recipients (1–2 of 2)");
    expect(await recipients.list(user.id)).toHaveLength(2);

    await (await user.press(list, deleteNg?.text ?? "")).answer();
    const again = await user.nextEdit(list);
    expect((await (await user.press(again, "🗑 Yes, delete")).answer()).text).toBe("Deleted");
    const after = await user.nextEdit(list);
    expect(after.text).toContain("Deleted: GTBANK PLC ••0000 · RICKI TESTER");
    expect(after.text).toContain("Saved recipients (1–1 of 1)");
    expect((await recipients.list(user.id)).map((recipient) => recipient.corridor)).toEqual(["KE"]);
    expect(await recipients.getByToken(ng.token)).toBeUndefined();
  });

  it("pages long lists in place", async () => {
    const user = stack.tg.user({ id: 7503, language_code: "en" });
    for (let index = 0; index < 6; index += 1) {
      await stack.app.store.recipients.save({
        userId: user.id,
        corridor: "NG",
        method: "ngn_bank",
        label: `BANK ${index} ••000${index} · PERSON ${index}`,
        details: { ...NG_BENEFICIARY, bankAccountNumber: `014920000${index}` },
      });
    }
    await user.send("/recipients");
    const list = await user.nextMessage({ match: "Saved recipients" });
    expect(list.text).toContain("Saved recipients (1–5 of 6)");
    await (await user.press(list, "▶")).answer();
    const next = await user.nextEdit(list);
    expect(next.text).toContain("Saved recipients (6–6 of 6)");
    expect(buttons(next).map((button) => button.text)).toContain("◀");
  });

  it("/send offers this country's recent and saved recipients first, each straight to the amount", async () => {
    const user = stack.tg.user({ id: 7504, language_code: "en" });
    const stranger = stack.tg.user({ id: 7505, language_code: "en" });
    const { recipients } = stack.app.store;
    // Someone else's recipient of the same country is never offered.
    await recipients.save({
      userId: stranger.id,
      corridor: "NG",
      method: "ngn_bank",
      label: "ZENITH BANK ••4444 · STRANGER DANGER",
      details: { ...NG_BENEFICIARY, bankAccountNumber: "0149204444", bankAccountName: "STRANGER DANGER" },
    });
    // A first payout to someone new (not saved): paid, so they count as recent. Nobody known yet: the bank step.
    const amount = await nigerianRecipient(user, { account: "0123456789" });
    const first = await quoteFor(user, "5000");
    const { invoice, status } = await confirmQuote(user, first);
    await (await user.press(invoice, /Simulate/)).answer();
    await user.nextEdit(status, { match: /Completed/ });
    expect(amount.text).toContain("GTBANK PLC ••6789");
    user.consumeAll();
    // Saved since: the staging account in Nigeria, Jane in Kenya.
    const saved = await recipients.save({
      userId: user.id,
      corridor: "NG",
      method: "ngn_bank",
      label: "GTBANK PLC ••0000 · RICKI TESTER",
      details: NG_BENEFICIARY,
    });
    await recipients.save({
      userId: user.id,
      corridor: "KE",
      method: "kes_phone",
      label: "M-Pesa ••0000 · Jane Wanjiku",
      details: KE_BENEFICIARY,
    });

    await user.send("/send");
    const countries = await user.nextMessage({ match: /Where does it go/ });
    const known = await pressAndEdit(user, countries, /Nigeria/, /Who should receive the money/);
    const offered = buttons(known).map((button) => button.text);
    expect(offered).toEqual([
      expect.stringMatching(/^GTBANK PLC ••6789 · /),
      "GTBANK PLC ••0000 · RICKI TESTER",
      "➕ Someone new",
      "❌ Cancel",
    ]);
    for (const button of buttons(known)) {
      if ("callback_data" in button)
        expect(Buffer.byteLength(button.callback_data ?? "")).toBeLessThanOrEqual(64);
    }
    expect(known.text).not.toContain("STRANGER");

    // A data the screen never drew (an index past the list) is nobody's.
    const forged = await user.pressData(known, "po-k:7");
    await forged.answer();
    expect(user.message(known.message_id)?.text).toBe(known.text);

    // The recent one: straight to the amount for that account.
    const recent = offered[0] ?? "";
    const toRecent = await pressAndEdit(user, known, recent, /How much should they receive/);
    expect(toRecent.text).toContain(`To: ${recent}`);
    await user.send("/send");
    const countriesAgain = await user.nextMessage({ match: /Where does it go/ });
    await pressAndEdit(user, countriesAgain, /Nigeria/, /Who should receive the money/);

    // The saved recipient: straight to the amount, and the quote goes to exactly its details.
    const toSaved = await pressAndEdit(
      user,
      countriesAgain,
      "GTBANK PLC ••0000 · RICKI TESTER",
      /How much should they receive/,
    );
    expect(toSaved.text).toContain("To: GTBANK PLC ••0000 · RICKI TESTER");
    const card = await quoteFor(user, "6000");
    const orderId = (await stack.app.store.orders.listForUser(user.id, 0, 1)).orders[0]?.orderId ?? "";
    const order = await stack.app.store.orders.get(orderId);
    expect(order).toMatchObject({ recipientId: saved.id, beneficiary: NG_BENEFICIARY });
    expect(card.text).toContain("RICKI TESTER");
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });

    // Kenya offers Kenya's; "Someone new" goes on to the usual steps.
    await user.send("/send");
    const again = await user.nextMessage({ match: /Where does it go/ });
    const kenyans = await pressAndEdit(user, again, /Kenya/, /Who should receive the money/);
    expect(buttons(kenyans).map((button) => button.text)).toEqual([
      "M-Pesa ••0000 · Jane Wanjiku",
      "➕ Someone new",
      "❌ Cancel",
    ]);
    // Deleted after the screen was drawn: read again as the user's own, it is gone, and the screen says so.
    const jane = (await recipients.list(user.id)).find((recipient) => recipient.corridor === "KE");
    await recipients.remove(user.id, jane?.id ?? "");
    const gone = await pressAndEdit(user, kenyans, "M-Pesa ••0000 · Jane Wanjiku", /no longer saved/);
    expect(buttons(gone).map((button) => button.text)).toContain("➕ Someone new");
    await pressAndEdit(user, kenyans, /Someone new/, /How should the money arrive/);
    await user.send("/cancel");
    await user.nextMessage({ match: "Cancelled" });

    // Nobody known in Ghana: the usual first step at once.
    await user.send("/send");
    const third = await user.nextMessage({ match: /Where does it go/ });
    await user.press(third, { data: payoutCountryData.pack({ country: "GH" }) });
    await user.nextEdit(third, { match: /MTN mobile money number/ });
  });
});
