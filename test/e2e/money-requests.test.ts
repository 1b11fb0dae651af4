import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payoutCountryData, payoutMethodData, payoutNetworkData } from "#src/bot/payout/callback-data.js";
import { requestData } from "#src/bot/payout/requests/callback-data.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttons, confirmQuote, pressAndEdit, typeAndRead } from "./payout-support.ts";

/**
 * Money requests end to end: the requester's flow (the payout's Kenyan recipient steps, driven by button data so
 * it reads the same in any language), the card (QR photo, link, Share, Cancel), the payer's link into a fresh quote
 * and the invoice, the requester's notices from the events pipeline, and inline mode through the emulator.
 */
const TTL_HOURS = 48;

interface Created {
  card: Message;
  token: string;
  link: string;
}

function linkOf(message: Message): string {
  const match = /https:\/\/t\.me\/\S+\?start=req_[A-Za-z0-9_-]{22}/.exec(
    message.caption ?? message.text ?? "",
  );
  if (!match) throw new Error("no request link on the message");
  return match[0];
}

/** The request card (a photo); "ready" above it and the menu below it are read past. */
async function requestCardOf(user: UserDriver): Promise<Message> {
  const card = await user.nextPhoto();
  await user.nextMessage({
    match: (message) => JSON.stringify(message.reply_markup ?? {}).includes("menu:send"),
  });
  user.consumeAll();
  return card;
}

/** A Kenyan request may be paid either way: "How will you pay?" first, then ⚡ to the Lightning quote card. */
async function lightningQuote(user: UserDriver): Promise<Message> {
  const choice = await user.nextMessage({ match: /How will you pay\?/ });
  return pressAndEdit(user, choice, "✅ ⚡ Bitcoin (Lightning)", /Your quote/);
}

async function press(user: UserDriver, message: Message, data: string): Promise<Message> {
  await (await user.press(message, { data })).answer();
  return user.nextEdit(message);
}

/** /request → Kenya → M-Pesa phone → name → amount: the request card. */
async function createKenyaRequest(
  user: UserDriver,
  amount = "1,500",
  name = "Jane Wanjiku",
): Promise<Created> {
  user.consumeAll();
  await user.send("/request");
  const countries = await user.nextMessage();
  const methods = await press(user, countries, payoutCountryData.pack({ country: "KE" }));
  await press(user, methods, payoutMethodData.pack({ method: "phone" }));
  await user.send("0790 000 000");
  const network = await user.nextMessage();
  await press(user, network, payoutNetworkData.pack({ network: "mpesa" }));
  await user.send(name);
  await user.nextMessage();
  await user.send(amount);
  const card = await requestCardOf(user);
  const link = linkOf(card);
  const token = link.slice(link.indexOf("req_") + 4);
  return { card, token, link };
}

describe("money requests", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { MONEY_REQUEST_TTL_HOURS: String(TTL_HOURS) } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("made in Kenya by A (Swahili), paid by B through the link: A told paid and landed once each, B gets the status card", async () => {
    const amina = stack.tg.user({ id: 7401, first_name: "Amina", language_code: "sw" });
    const bola = stack.tg.user({ id: 7402, first_name: "Bola", language_code: "en" });

    await amina.send("/request");
    const countries = await amina.nextMessage();
    expect(countries.text).toContain("Omba pesa");
    amina.consumeAll();
    const { card, token, link } = await createKenyaRequest(amina);
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(card.photo?.length).toBeGreaterThan(0);
    expect(card.caption).toContain("Ombi la pesa");
    expect(card.caption).toContain("Jane Wanjiku anaomba KSh 1,500.00");
    expect(card.caption).toContain("M-Pesa ••0000 · Jane Wanjiku");
    expect(card.caption).not.toContain("790000000");
    expect(link).toBe(`https://t.me/${stack.tg.bot.username}?start=req_${token}`);
    expect(buttons(card)).toEqual(["📤 Shiriki kwenye gumzo", "🗑 Ghairi ombi"]);
    const share = card.reply_markup?.inline_keyboard[0]?.[0];
    expect(share && "switch_inline_query" in share ? share.switch_inline_query : undefined).toBe(
      `request ${token}`,
    );
    const cancelData = card.reply_markup?.inline_keyboard[1]?.[0];
    expect(cancelData && "callback_data" in cancelData ? cancelData.callback_data : "").toBe(
      requestData.pack({ action: "cancel", token }),
    );
    const stored = await stack.app.store.requests.get(token);
    expect(stored).toMatchObject({
      userId: 7401,
      corridor: "KE",
      amount: { amount: 150_000, currency: "KESCENT" },
      beneficiary: {
        identifierType: "paytophone",
        identifiers: { phoneNumber: "+254790000000", network: "mpesa" },
      },
    });
    expect(Date.parse(stored!.expiresAt) - Date.parse(stored!.createdAt)).toBe(TTL_HOURS * 3600 * 1000);

    // B opens the link: who receives what, then a fresh quote for exactly that beneficiary and amount.
    await bola.openLink(link);
    const intro = await bola.nextMessage({ match: /Money request/ });
    expect(intro.text).toContain(
      "Jane Wanjiku asks for KSh 1,500.00, paid out to M-Pesa ••0000 · Jane Wanjiku",
    );
    const quote = await lightningQuote(bola);
    expect(quote.text).toContain("Recipient gets: KSh 1,500.00");
    const { invoice, status } = await confirmQuote(bola, quote);
    const orderId = (await stack.app.store.orders.listForUser(7402, 0, 1)).orders[0]?.orderId ?? "";
    const order = await stack.app.store.orders.get(orderId);
    expect(order).toMatchObject({ requestId: token, userId: 7402, receive: { amount: 150_000 } });
    expect(stack.sandbox.state.quotes.get(order!.quoteId)).toMatchObject({
      amountInTarget: 150_000,
      beneficiary: { phoneNumber: "+254790000000", accountName: "Jane Wanjiku", network: "mpesa" },
    });
    expect((await stack.app.store.requests.read(token, stack.sandbox.now()))?.status).toMatchObject({
      state: "pending",
      orderId,
    });

    // While B's invoice is open, a second payer is told it is being paid.
    const chidi = stack.tg.user({ id: 7403, first_name: "Chidi", language_code: "en" });
    await chidi.openLink(link);
    expect((await chidi.nextMessage()).text).toMatch(/Someone is paying this request right now/);

    await (await bola.press(invoice, /Simulate/)).answer();
    await bola.nextEdit(status, { match: /Completed/ });
    const paid = await amina.nextMessage({ match: /limelipwa/ });
    expect(paid.text).toBe(
      "💌 Ombi lako la KSh 1,500.00 limelipwa. Pesa ziko njiani kwenda M-Pesa ••0000 · Jane Wanjiku.",
    );
    const landed = await amina.nextMessage({ match: /zimefika/ });
    expect(landed.text).toBe("✅ KSh 1,500.00 za ombi lako zimefika kwa M-Pesa ••0000 · Jane Wanjiku.");
    expect((await stack.app.store.requests.read(token, stack.sandbox.now()))?.status).toEqual({
      state: "paid",
      orderId,
    });

    // Paid: a later payer is refused, and nobody hears anything twice.
    await chidi.openLink(link);
    expect((await chidi.nextMessage()).text).toBe(
      "This request has already been paid. There is nothing more to pay.",
    );
    await stack.tg.idle({ quietMs: 600 });
    expect(amina.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
    const bolaOrders = (await stack.app.store.orders.listForUser(7402, 0, 10)).orders;
    expect(bolaOrders.map((found) => [found.requestId, found.stage])).toEqual([[token, "completed"]]);
    expect((await stack.app.store.orders.listForUser(7403, 0, 10)).orders).toEqual([]);
  });

  it("two payers with quotes at once: the first Confirm wins, the second is refused before any invoice", async () => {
    const asker = stack.tg.user({ id: 7411, first_name: "Wanjiru" });
    const { link, token } = await createKenyaRequest(asker, "2,000", "Wanjiru Kamau");
    const first = stack.tg.user({ id: 7412, first_name: "Dayo" });
    const second = stack.tg.user({ id: 7413, first_name: "Efua" });
    await first.openLink(link);
    await first.nextMessage({ match: /Money request/ });
    const firstQuote = await lightningQuote(first);
    await second.openLink(link);
    await second.nextMessage({ match: /Money request/ });
    const secondQuote = await lightningQuote(second);
    await confirmQuote(first, firstQuote);
    await (await second.press(secondQuote, /Confirm/)).answer();
    const refused = await second.nextEdit(secondQuote, { match: /Someone is paying/ });
    expect(buttons(refused)).toEqual([]);
    expect(second.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
    const secondOrder = (await stack.app.store.orders.listForUser(7413, 0, 1)).orders[0];
    expect(secondOrder).toMatchObject({ requestId: token, stage: "cancelled" });
    expect(secondOrder?.confirmedAt).toBeUndefined();
  });

  it("the requester cancels from the card and from /requests; a cancelled request is refused", async () => {
    const asker = stack.tg.user({ id: 7421, first_name: "Otieno" });
    const payer = stack.tg.user({ id: 7422, first_name: "Femi" });
    const one = await createKenyaRequest(asker, "700", "Otieno Ouma");
    const cancel = await asker.press(one.card, /Cancel request/);
    expect((await cancel.answer()).text).toBe("Request cancelled: nobody can pay it any more.");
    expect(buttons(await asker.nextEdit(one.card))).toEqual([]);
    await asker.nextMessage({ match: /Request cancelled/ });
    await payer.openLink(one.link);
    expect((await payer.nextMessage()).text).toBe("This request was cancelled by the person who made it.");

    const two = await createKenyaRequest(asker, "800", "Otieno Ouma");
    await asker.send("/requests");
    const list = await asker.nextMessage({ match: /Your money requests/ });
    expect(list.text).toContain("KSh 800.00 → M-Pesa ••0000 · Otieno Ouma");
    expect(list.text).toContain("✖️ cancelled");
    expect(buttons(list)).toEqual(["🗑 Cancel KSh 800.00"]);
    const press = await asker.press(list, "🗑 Cancel KSh 800.00");
    expect((await press.answer()).text).toMatch(/Request cancelled/);
    const after = await asker.nextEdit(list);
    expect(buttons(after)).toEqual([]);
    expect((await stack.app.store.requests.read(two.token, stack.sandbox.now()))?.status).toEqual({
      state: "cancelled",
    });
    // Someone else's request cannot be cancelled with forged data.
    const mine = await createKenyaRequest(payer, "900", "Femi Ade");
    const forged = await asker.pressData(list, requestData.pack({ action: "cancel", token: mine.token }));
    expect((await forged.answer()).text).toMatch(/older screen/);
    expect((await stack.app.store.requests.read(mine.token, stack.sandbox.now()))?.status).toEqual({
      state: "open",
    });
  });

  it("inline mode: '@bot request' lists the open requests as cards that pay through the link", async () => {
    const asker = stack.tg.user({ id: 7431, first_name: "Njeri" });
    const payer = stack.tg.user({ id: 7432, first_name: "Kwame" });
    const family = stack.tg.group({ title: "Family" }).addMember(asker).addMember(payer);
    const { token, link } = await createKenyaRequest(asker, "1,200", "Njeri Mwangi");

    const query = asker.inlineQuery("request");
    const answer = await query.answer();
    expect(answer.isPersonal).toBe(true);
    expect(answer.cacheTime).toBe(0);
    expect(answer.button).toEqual({ text: "➕ New money request", start_parameter: "request" });
    expect(answer.results.map((result) => result.id)).toEqual([token]);
    const [result] = answer.results;
    expect(result).toMatchObject({ type: "article", title: "Money request: KSh 1,200.00" });

    // Mid-flow, an inline query is answered and the flow keeps its place (a waiting step never takes it).
    await asker.send("/send");
    const countries = await asker.nextMessage({ match: /Where does it go/ });
    const only = await asker.inlineQuery(`request ${token}`).answer();
    expect(only.results.map((found) => found.id)).toEqual([token]);
    await pressAndEdit(asker, countries, /Kenya/, /How should the money arrive/);
    const none = await payer.inlineQuery("request").answer();
    expect(none.results).toEqual([]);
    const bare = await asker.inlineQuery("").answer();
    expect(bare.results.map((found) => found.id)).toEqual([token]);
    const elsewhere = await asker.inlineQuery(`request ${"x".repeat(22)}`).answer();
    expect(elsewhere.results).toEqual([]);

    const posted = await family.sendInlineResult(asker, answer, token);
    expect(posted.via_bot?.username).toBe(stack.tg.bot.username);
    expect(posted.text).toContain("Njeri Mwangi asks for KSh 1,200.00.");
    expect(posted.text).toContain("Paid out to: M-Pesa ••0000 · Njeri Mwangi");
    const pay = posted.reply_markup?.inline_keyboard[0]?.[0];
    expect(pay?.text).toBe("💸 Pay KSh 1,200.00");
    const url = pay && "url" in pay ? pay.url : "";
    expect(url).toBe(link);

    await payer.openLink(url ?? "");
    await payer.nextMessage({ match: /Njeri Mwangi asks for KSh 1,200.00/ });
    await lightningQuote(payer);

    // The inline answer's "new request" button opens the request flow.
    await payer.openLink(`https://t.me/${stack.tg.bot.username}?start=request`);
    expect((await payer.nextMessage({ match: /Ask for money/ })).text).toContain("Where");
  });

  it("Nigeria: the name enquiry's name is on the card; a payout that fails after payment tells the requester", async () => {
    const asker = stack.tg.user({ id: 7451, first_name: "Ada", language_code: "en" });
    const payer = stack.tg.user({ id: 7452, first_name: "Tunde", language_code: "en" });
    asker.consumeAll();
    await asker.send("/request");
    const countries = await asker.nextMessage({ match: /Ask for money/ });
    await pressAndEdit(asker, countries, /Nigeria/, /Which bank is your account with/);
    await asker.send("gtb");
    const banks = await asker.nextMessage({ match: /Banks matching/ });
    await pressAndEdit(asker, banks, "GTBANK PLC", /your 10-digit account number/);
    await asker.send("0123456999");
    const named = await asker.nextMessage({ match: /belongs to/ });
    expect(named.text).toMatch(/Is this your account\?$/);
    expect(buttons(named)).toEqual(["✅ Yes, that's me", "✏️ Change", "❌ Cancel"]);
    const amount = await pressAndEdit(
      asker,
      named,
      /Yes, that's me/,
      /How much do you want to receive, in naira/,
    );
    expect(buttons(amount)).toEqual(["✏️ Change my details", "❌ Cancel"]);
    expect((await typeAndRead(asker, "20000 sats")).text).toMatch(/A request is in naira/);
    await asker.send("4,000");
    const card = await requestCardOf(asker);
    expect(card.caption).toMatch(/asks for ₦4,000\.00/);
    expect(card.caption).toContain("GTBANK PLC ••6999");
    expect(card.caption).not.toContain("0123456999");

    await payer.openLink(linkOf(card));
    await payer.nextMessage({ match: /Money request/ });
    const quote = await payer.nextMessage({ match: /Your quote/ });
    const { invoice, status } = await confirmQuote(payer, quote);
    await (await payer.press(invoice, /Simulate/)).answer();
    await payer.nextEdit(status, { match: /Failed/ });
    await asker.nextMessage({ match: /Your request for ₦4,000\.00 was paid/ });
    const failed = await asker.nextMessage({ match: /did not go through/ });
    expect(failed.text).toContain("The payer can get a refund");
    await stack.tg.idle({ quietMs: 600 });
    expect(asker.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
  });

  it("asks the requester for their own details, in words meant for the one who receives", async () => {
    const asker = stack.tg.user({ id: 7461, first_name: "Wanjiru", language_code: "en" });
    await asker.send("/request");
    const countries = await asker.nextMessage({ match: /Ask for money/ });
    expect(countries.text).toContain("Where should the money arrive?");
    expect(countries.text).not.toMatch(/Send money|your recipient gets|Where does it go/);
    const methods = await pressAndEdit(asker, countries, /Kenya/, /How do you want to receive the money/);
    const phone = await pressAndEdit(
      asker,
      methods,
      /M-Pesa \/ Airtel phone/,
      /Send your M-Pesa or Airtel Money number/,
    );
    expect(phone.text).not.toMatch(/recipient/);
    const network = await typeAndRead(asker, "0790 000 000", /Which wallet/);
    expect(network.text).toContain("Which wallet should the money go to?");
    const name = await pressAndEdit(asker, network, "✅ M-Pesa", /your name/);
    expect(name.text).toBe("👤 What is your name, as registered with the wallet on +254 790 000000?");
    const amount = await typeAndRead(asker, "Wanjiru Kamau", /How much do you want to receive/);
    expect(buttons(amount)).toEqual(["✏️ Change my details", "❌ Cancel"]);

    // "Change my details" starts over at the country, still in the requester's words.
    const again = await pressAndEdit(asker, amount, /Change my details/, /Where should the money arrive/);
    const ghana = await pressAndEdit(asker, again, /Ghana/, /Send your MTN mobile money number/);
    expect(ghana.text).not.toMatch(/recipient/);
    expect((await typeAndRead(asker, "024 123 4567")).text).toBe(
      "👤 What is your name, as on the MoMo account +233 24 123 4567?",
    );
    await asker.send("/cancel");
    await asker.nextMessage({ match: /Cancelled/ });

    await asker.send("/request");
    const southAfrica = await asker.nextMessage({ match: /Ask for money/ });
    await pressAndEdit(asker, southAfrica, /South Africa/, /Which bank is your account with/);
    expect((await typeAndRead(asker, "fnb")).text).toBe("🔢 Send your account number at FNB.");
    expect((await typeAndRead(asker, "1352 900 000")).text).toBe(
      "👤 What is your name, as it appears on the account?",
    );
    await asker.send("/cancel");
    await asker.nextMessage({ match: /Cancelled/ });
  });

  it("a paid request's card says it was paid and no longer offers Cancel", async () => {
    const asker = stack.tg.user({ id: 7471, first_name: "Achieng", language_code: "en" });
    const payer = stack.tg.user({ id: 7472, first_name: "Segun", language_code: "en" });
    const { card, link, token } = await createKenyaRequest(asker, "1,000", "Achieng Odhiambo");
    expect(buttons(card)).toEqual(["📤 Share in a chat", "🗑 Cancel request"]);

    await payer.openLink(link);
    await payer.nextMessage({ match: /Money request/ });
    const quote = await lightningQuote(payer);
    const { invoice, status } = await confirmQuote(payer, quote);
    await (await payer.press(invoice, /Simulate/)).answer();
    await payer.nextEdit(status, { match: /Completed/ });

    const paid = await asker.nextEdit(card, { match: /Paid/ });
    expect(paid.caption).toBe(
      "💌 Money request · ✅ Paid\n" +
        "Achieng Odhiambo asked for KSh 1,000.00 and it has been paid.\n" +
        "Paid out to: M-Pesa ••0000 · Achieng Odhiambo",
    );
    expect(paid.caption).not.toContain(link);
    expect(buttons(paid)).toEqual([]);
    // A late press of the old Cancel (a client still showing it) is told the truth.
    const late = await asker.pressData(card, requestData.pack({ action: "cancel", token }));
    expect((await late.answer()).text).toBe("This request is already paid.");
  });

  it("an expired request is refused on the API's clock", async () => {
    const asker = stack.tg.user({ id: 7441, first_name: "Akinyi" });
    const payer = stack.tg.user({ id: 7442, first_name: "Ngozi" });
    const { link, token } = await createKenyaRequest(asker, "600", "Akinyi Otieno");
    await stack.advanceClock(TTL_HOURS * 3600 * 1000 + 60_000);
    await payer.openLink(link);
    expect((await payer.nextMessage()).text).toBe("This request has expired. Ask for a new one.");
    await asker.send("/requests");
    const list = await asker.nextMessage({ match: /Your money requests/ });
    expect(list.text).toContain("⌛ expired");
    expect(buttons(list)).toEqual([]);
    const expired = await stack.app.store.requests.get(token);
    const cancel = await asker.pressData(list, requestData.pack({ action: "cancel", token: expired!.token }));
    expect((await cancel.answer()).text).toBe("This request has already expired.");
  });
});
