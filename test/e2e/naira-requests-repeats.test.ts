import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payoutCountryData, payoutMethodData, payoutNetworkData } from "#src/bot/payout/callback-data.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { checkNairaCard, confirmAndTransfer } from "./naira-support.ts";
import { buttons, confirmQuote, pressAndEdit } from "./payout-support.ts";

/**
 * A money request from Kenya and a repeat send to Kenya, each paid either way: "How will you pay?" before the quote,
 * 🏦 to the naira quote card (its figures the sandbox quote's), Confirm, the transfer, delivered; a repeat remembers
 * how it was last paid.
 */
const KENYA = {
  corridor: "KE" as const,
  method: "kes_phone",
  label: "M-Pesa +********0000 · Jane Wanjiku",
  details: {
    identifierType: "paytophone",
    identifiers: { phoneNumber: "+254790000000", accountName: "Jane Wanjiku", network: "mpesa" },
  },
};

async function press(user: UserDriver, message: Message, data: string): Promise<Message> {
  await (await user.press(message, { data })).answer();
  return user.nextEdit(message);
}

/** /request → Kenya → M-Pesa → name → amount; the link on the request card. */
async function kenyaRequestLink(user: UserDriver, amount: string): Promise<string> {
  await user.send("/request");
  const countries = await user.nextMessage();
  const methods = await press(user, countries, payoutCountryData.pack({ country: "KE" }));
  await press(user, methods, payoutMethodData.pack({ method: "phone" }));
  await user.send("0790 000 000");
  const network = await user.nextMessage();
  await press(user, network, payoutNetworkData.pack({ network: "mpesa" }));
  await user.send("Jane Wanjiku");
  await user.nextMessage();
  await user.send(amount);
  const card = await user.nextPhoto();
  const link = /https:\/\/t\.me\/\S+\?start=req_[A-Za-z0-9_-]{22}/.exec(card.caption ?? "")?.[0];
  if (!link) throw new Error("no request link");
  return link;
}

const CHOICE = /How will you pay\?/;
const BOTH = ["⚡ Bitcoin (Lightning)", "🏦 Naira bank transfer"];

describe("money requests and repeat sends paid in naira", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("a Kenyan request paid in naira by another user: the requester is told it was paid and landed", async () => {
    const asker = stack.tg.user({ id: 7651, first_name: "Wanjiku" });
    const payer = stack.tg.user({ id: 7652, first_name: "Chidi" });
    const link = await kenyaRequestLink(asker, "1,500");
    const token = link.slice(link.indexOf("req_") + 4);

    await payer.openLink(link);
    await payer.nextMessage({ match: /Money request/ });
    const choice = await payer.nextMessage({ match: CHOICE });
    expect(choice.text).toContain("Jane Wanjiku gets KSh 1,500.00");
    expect(buttons(choice).slice(0, 2)).toEqual([`✅ ${BOTH[0]}`, BOTH[1]]);
    const before = stack.sandbox.state.quotes.size;
    const card = await pressAndEdit(payer, choice, BOTH[1]!, /Your quote/);
    const { order, quote } = await checkNairaCard(stack, card, before);
    expect(quote.amountInTarget).toBe(150_000);
    expect(quote.paymentCurrency).toBe("KESCENT");
    expect(order).toMatchObject({ requestId: token, userId: 7652, receive: { amount: 150_000 } });

    const done = await confirmAndTransfer(payer, card);
    expect(done.text).toContain("KSh 1,500.00 was delivered to M-Pesa ••0000 · Jane Wanjiku");
    await asker.nextMessage({ match: /request for KSh 1,500.00 was paid/i });
    await asker.nextMessage({ match: /arrived|landed|delivered/i });
    expect((await stack.app.store.requests.read(token, stack.sandbox.now()))?.status).toEqual({
      state: "paid",
      orderId: order.orderId,
    });
  });

  it("a repeat send to Kenya: paid in naira, remembered, then paid over Lightning when chosen", async () => {
    const ada = stack.tg.user({ id: 7653, first_name: "Ada" });
    await ada.send("/start");
    await ada.nextMessage();
    const recipient = await stack.app.store.recipients.save({ userId: ada.id, ...KENYA });
    const { repeat } = await stack.app.store.repeats.create(
      {
        userId: ada.id,
        chatId: ada.id,
        recipientId: recipient.id,
        corridor: "KE",
        clock: "KE",
        label: recipient.label,
        amount: { amount: 200_000, currency: "KESCENT" },
        cadence: "week",
        anchor: "2026-03-02",
      },
      stack.sandbox.now(),
      new Date(stack.sandbox.now()).toISOString(),
    );
    const dueCard = async () => {
      await expect
        .poll(async () => (await stack.app.store.repeats.get(repeat.id))?.lastCard?.messageId, {
          timeout: 15_000,
        })
        .toBeDefined();
      const id = (await stack.app.store.repeats.get(repeat.id))?.lastCard?.messageId ?? 0;
      const card = ada.message(id);
      if (!card) throw new Error("no due card");
      return card;
    };

    // First time: Lightning ticked (never paid yet); 🏦 pays it in naira.
    await (await ada.press(await dueCard(), /Get quote/)).answer();
    const choice = await ada.nextMessage({ match: CHOICE });
    expect(buttons(choice).slice(0, 2)).toEqual([`✅ ${BOTH[0]}`, BOTH[1]]);
    const before = stack.sandbox.state.quotes.size;
    const card = await pressAndEdit(ada, choice, BOTH[1]!, /Your quote/);
    const { quote } = await checkNairaCard(stack, card, before);
    expect(quote.amountInTarget).toBe(200_000);
    expect(card.text).toContain("Recipient gets: KSh 2,000.00");
    const done = await confirmAndTransfer(ada, card);
    expect(done.text).toContain("KSh 2,000.00 was delivered to M-Pesa");
    expect((await stack.app.store.repeats.get(repeat.id))?.payWith).toBe("naira");

    // A week later: naira ticked; ⚡ this time quotes over Lightning, and that is remembered instead.
    const firstCard = (await stack.app.store.repeats.get(repeat.id))?.lastCard?.n;
    await stack.advanceClock(8 * 86_400_000);
    await expect
      .poll(async () => (await stack.app.store.repeats.get(repeat.id))?.lastCard?.n, { timeout: 15_000 })
      .toBeGreaterThan(firstCard ?? 0);
    await (await ada.press(await dueCard(), /Get quote/)).answer();
    const again = await ada.nextMessage({ match: CHOICE });
    expect(buttons(again).slice(0, 2)).toEqual([BOTH[0], `✅ ${BOTH[1]}`]);
    const lightning = await pressAndEdit(ada, again, BOTH[0]!, /Your quote/);
    expect(lightning.text).toContain("Recipient gets: KSh 2,000.00");
    const { invoice } = await confirmQuote(ada, lightning);
    expect(invoice.text).toMatch(/^ln/);
    expect((await stack.app.store.repeats.get(repeat.id))?.payWith).toBe("lightning");
  });
});
