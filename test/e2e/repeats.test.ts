import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepeatsJob } from "#src/bot/account/repeats/job.js";
import { scheduleOf } from "#src/bot/account/repeats/render.js";
import { dueAt, occurrenceDay } from "#src/bot/account/repeats/schedule.js";
import type { Recipient, Repeat } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  buttons,
  confirmQuote,
  current,
  nigerianRecipient,
  orderIdOf,
  pressAndEdit,
  quoteFor,
  typeAndRead,
} from "./payout-support.ts";

const DAY = 86_400_000;
const DUE_CARD = /Your repeat send is due/;

function dueCards(user: UserDriver): Message[] {
  return user.messages().filter((message) => DUE_CARD.test(message.text ?? ""));
}

async function onlyRepeat(stack: Stack, userId: number): Promise<Repeat> {
  const repeats = await stack.app.store.repeats.list(userId);
  expect(repeats).toHaveLength(1);
  return repeats[0]!;
}

/** The due card for occurrence `n` (or for any occurrence), once the job has recorded sending it. */
async function cardFor(stack: Stack, user: UserDriver, n?: number): Promise<Message> {
  await expect
    .poll(async () => (await onlyRepeat(stack, user.id)).lastCard, { timeout: 15_000 })
    .toMatchObject({ ...(n === undefined ? {} : { n }), messageId: expect.any(Number) });
  const { lastCard } = await onlyRepeat(stack, user.id);
  const card = user.message(lastCard!.messageId!);
  if (!card) throw new Error("the due card is not in the chat");
  return card;
}

/** A user who has started the bot and has one saved recipient (written through the store). */
async function withRecipient(
  stack: Stack,
  user: UserDriver,
  recipient: Pick<Recipient, "corridor" | "method" | "label" | "details">,
): Promise<Recipient> {
  await user.send("/start");
  await user.nextMessage();
  return stack.app.store.recipients.save({ userId: user.id, ...recipient });
}

/** A repeat to a saved recipient, set up through the store and scheduled at `dueAt` (the sandbox's now by default). */
function repeatDue(
  stack: Stack,
  recipient: Recipient,
  fields: Pick<Repeat, "amount" | "cadence" | "anchor">,
  dueAt = stack.sandbox.now(),
) {
  const base = { userId: recipient.userId, chatId: recipient.userId, recipientId: recipient.id };
  const where = { corridor: recipient.corridor, clock: recipient.corridor, label: recipient.label };
  return stack.app.store.repeats.create(
    { ...base, ...where, ...fields },
    dueAt,
    new Date(stack.sandbox.now()).toISOString(),
  );
}

/** Pay a confirmed payout in the sandbox and wait for its status card to say it landed. */
async function payAndLand(user: UserDriver, invoice: Message, status: Message): Promise<Message> {
  await (await user.press(invoice, /Simulate/)).answer();
  return user.nextEdit(status, { match: /Completed/ });
}

describe("repeat sends", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("monthly from a receipt: the card arrives after a month, Get quote → Confirm → invoice and status card; months later only one card", async () => {
    const ada = stack.tg.user({ id: 7901, first_name: "Ada" });
    await nigerianRecipient(ada);
    const firstQuote = await quoteFor(ada, "10,000");
    const first = await confirmQuote(ada, firstQuote);
    const done = await payAndLand(ada, first.invoice, first.status);

    await (await ada.press(done, /Receipt/)).answer();
    await ada.nextMessage({ match: /Payment receipt/ });
    const offer = await ada.nextMessage({ match: /Send this again on a schedule/ });
    expect(buttons(offer)).toEqual(["🔁 Every week", "🔁 Every month"]);
    const set = await pressAndEdit(ada, offer, /Every month/, /Repeat send set up/);
    expect(set.text).toContain(
      "GTBANK PLC ••0000 · OLADEJI OLAOLU · ₦10,000.00 (they receive) · every month",
    );
    expect(set.text).toMatch(/Next: .+, 09:00 WAT/);

    const repeat = await onlyRepeat(stack, ada.id);
    expect(repeat).toMatchObject({
      cadence: "month",
      clock: "NG",
      amount: { amount: 1_000_000, currency: "NGNKOBO" },
      next: 1,
      paused: false,
    });
    // The receipt's recipient was saved for it.
    const [recipient] = await stack.app.store.recipients.list(ada.id);
    expect(recipient?.id).toBe(repeat.recipientId);
    // A second press sets nothing up twice.
    const again = await ada.pressData(offer, `rptn:month:${orderIdOf(firstQuote)}:o`);
    expect((await again.answer()).text).toBe("Already set up");
    expect(await stack.app.store.repeats.list(ada.id)).toHaveLength(1);

    // A month later on the API's clock (local mode's :advance moves the same clock).
    await stack.advanceClock(32 * DAY);
    const card = await cardFor(stack, ada, 1);
    expect(card.text).toContain(
      "GTBANK PLC ••0000 · OLADEJI OLAOLU · ₦10,000.00 (they receive) · every month",
    );
    expect(card.text).toMatch(/Due: .+, 09:00 WAT/);
    expect(card.text).not.toContain("not sent again");
    expect(buttons(card)).toEqual([
      "💱 Get quote",
      "⏭ Skip this time",
      "✏️ Change amount",
      "⏸ Pause",
      "🛑 Stop",
    ]);

    const press = await ada.press(card, /Get quote/);
    expect((await press.answer()).text).toMatch(/fresh quote/);
    const quote = await ada.nextMessage({ match: /Your quote/ });
    expect(quote.text).toContain("Recipient gets: ₦10,000.00");
    expect(quote.text).toContain("GTBANK PLC ••0000");
    expect(buttons(current(ada, card))).toEqual([]);
    const { invoice, status } = await confirmQuote(ada, quote);
    expect(invoice.text).toMatch(/^ln/);
    await payAndLand(ada, invoice, status);
    expect(dueCards(ada)).toHaveLength(1);

    // The bot saw nothing for about three months: one card, for the latest date, and the next one is ahead.
    await stack.advanceClock(100 * DAY);
    const late = await cardFor(stack, ada, 4);
    expect(late.text).toContain("Earlier dates that passed meanwhile are not sent again");
    const after = await onlyRepeat(stack, ada.id);
    expect(after.next).toBe(5);
    expect(dueAt(scheduleOf(after), after.next)).toBeGreaterThan(stack.sandbox.now());
    expect(dueCards(ada)).toHaveLength(2);

    // Skip this time: the card says so; the schedule had already moved on.
    const skipped = await pressAndEdit(ada, late, /Skip this time/, /Skipped this time/);
    expect(skipped.text).toMatch(/Next: .+, 09:00 WAT/);
    expect((await onlyRepeat(stack, ada.id)).next).toBe(5);
  });

  it("from a saved recipient, managed with /repeats: skip, change amount, pause, resume, stop", async () => {
    const bola = stack.tg.user({ id: 7902, first_name: "Bola" });
    await nigerianRecipient(bola, { account: "0149200001" });
    const { invoice } = await confirmQuote(bola, await quoteFor(bola, "5000"));
    await (await bola.press(invoice, /Save recipient/)).answer();
    await bola.nextMessage({ match: /Saved/ });

    await bola.send("/recipients");
    const list = await bola.nextMessage({ match: /Saved recipients/ });
    await (await bola.press(list, "🔁 (1)")).answer();
    const how = await bola.nextMessage({ match: /Repeat a send to/ });
    await (await bola.press(how, /Every week/)).answer();
    await bola.nextMessage({ match: /How much should .+ get every week/ });
    expect((await typeAndRead(bola, "12", /Minimum/)).text).toMatch(/₦2,000\.00/);
    const created = await typeAndRead(bola, "7,500", /Repeat send set up/);
    expect(created.text).toContain("₦7,500.00 (they receive) · every week");
    const repeat = await onlyRepeat(stack, bola.id);
    const firstDue = dueAt(scheduleOf(repeat), 1);

    await bola.send("/repeats");
    let screen = await bola.nextMessage({ match: /Your repeat sends/ });
    expect(screen.text).toContain("1. 🇳🇬 GTBANK PLC ••0001");
    expect(buttons(screen)).toEqual(["💱 1", "⏭ 1", "⏸ 1", "✏️ 1", "🛑 1"]);

    screen = await pressAndEdit(bola, screen, "⏭ 1", /Next date skipped/);
    expect((await onlyRepeat(stack, bola.id)).next).toBe(2);
    expect(await stack.redis.zscore("repeats:due", repeat.id)).toBe(String(firstDue + 7 * DAY));

    await (await bola.press(screen, "✏️ 1")).answer();
    await bola.nextMessage({ match: /How much should/ });
    const changed = await typeAndRead(bola, "21000 sats", /Amount changed/);
    expect(changed.text).toContain("21,000 sats (you pay) · every week");
    expect((await onlyRepeat(stack, bola.id)).amount).toEqual({ amount: 21_000, currency: "BTCSAT" });

    await bola.send("/repeats");
    screen = await bola.nextMessage({ match: /Your repeat sends/ });
    screen = await pressAndEdit(bola, screen, "⏸ 1", /Paused:/);
    expect(await stack.redis.zscore("repeats:due", repeat.id)).toBeNull();
    // Paused through three weekly dates: no card, and resuming does not send what fell due meanwhile.
    await stack.advanceClock(22 * DAY);
    screen = await pressAndEdit(bola, screen, "▶️ 1", /Resumed:/);
    const resumed = await onlyRepeat(stack, bola.id);
    expect(dueAt(scheduleOf(resumed), resumed.next)).toBeGreaterThan(stack.sandbox.now());
    expect(resumed.next).toBeGreaterThan(2);

    // The next weekly card: sats as given, and Pause from the card.
    await stack.advanceClock(7 * DAY);
    const card = await cardFor(stack, bola, resumed.next);
    expect(card.text).toContain("21,000 sats (you pay) · every week");
    await pressAndEdit(bola, card, /Pause/, /Paused:/);
    expect((await onlyRepeat(stack, bola.id)).paused).toBe(true);

    screen = await pressAndEdit(bola, screen, "🛑 1", /Stopped:/);
    expect(screen.text).toContain("You have no repeat sends");
    expect(await stack.app.store.repeats.list(bola.id)).toEqual([]);
    expect(await stack.redis.zscore("repeats:due", repeat.id)).toBeNull();
    // The card pressed Pause on says so, without buttons.
    expect(current(bola, card).text).toMatch(/^⏸ Paused:/);
    expect(buttons(current(bola, card))).toEqual([]);
  });

  it("two processes' due jobs at once: one card per occurrence", async () => {
    const cleo = stack.tg.user({ id: 7903, first_name: "Cleo" });
    await nigerianRecipient(cleo, { account: "0149200002" });
    const { invoice } = await confirmQuote(cleo, await quoteFor(cleo, "3000"));
    await (await cleo.press(invoice, /Save recipient/)).answer();
    await cleo.nextMessage({ match: /Saved/ });
    const [recipient] = await stack.app.store.recipients.list(cleo.id);
    const { app } = stack;
    // Due long ago (years of weekly dates missed): exactly one card, however many jobs look at it.
    const { repeat } = await repeatDue(
      stack,
      recipient!,
      { amount: { amount: 300_000, currency: "NGNKOBO" }, cadence: "week", anchor: "2020-01-06" },
      stack.sandbox.now() - DAY,
    );
    const jobs = [1, 2, 3].map(() =>
      createRepeatsJob({
        deps: app.deps,
        telegram: app.bot.api,
        languageOf: async () => "en",
        logger: app.deps.logger,
      }),
    );
    const outcomes = await Promise.all(jobs.map((job) => job.handle(repeat.id)));
    // The app's own job (after every reconciler tick) races these three too: at most one of all of them sends.
    expect(outcomes.filter((outcome) => outcome === "sent").length).toBeLessThanOrEqual(1);
    const card = await cardFor(stack, cleo, (await onlyRepeat(stack, cleo.id)).next - 1);
    expect(card.text).toContain("Earlier dates that passed meanwhile are not sent again");
    const after = await onlyRepeat(stack, cleo.id);
    expect(dueAt(scheduleOf(after), after.next)).toBeGreaterThan(stack.sandbox.now());
    expect(dueAt(scheduleOf(after), after.next - 1)).toBeLessThanOrEqual(stack.sandbox.now());
    // Once more, all together: nothing is due any more.
    expect(await Promise.all(jobs.map((job) => job.sendDue()))).toEqual([0, 0, 0]);
    expect(dueCards(cleo)).toHaveLength(1);
  });

  it("in the user's language and clock: a Swahili user's card at 09:00 Nairobi time, paused from the card", async () => {
    const wanjiku = stack.tg.user({ id: 7904, first_name: "Wanjiku", language_code: "sw" });
    const recipient = await withRecipient(stack, wanjiku, {
      corridor: "KE",
      method: "kes_phone",
      label: "M-Pesa +********0000 · Jane Wanjiku",
      details: { phoneNumber: "254790000000", accountName: "Jane Wanjiku", network: "mpesa" },
    });
    await repeatDue(stack, recipient, {
      amount: { amount: 250_000, currency: "KESCENT" },
      cadence: "month",
      anchor: "2026-01-31",
    });
    const card = await cardFor(stack, wanjiku);
    // Anchored on 31 January, monthly: the latest date already due is a month's end (28th–31st), 09:00 in Nairobi.
    const { lastCard } = await onlyRepeat(stack, wanjiku.id);
    expect(occurrenceDay({ cadence: "month", anchor: "2026-01-31" }, lastCard!.n)).toMatch(/-(28|29|30|31)$/);
    expect(card.text).toContain("Ni siku ya utumaji wako wa kurudia");
    expect(card.text).toContain("M-Pesa +********0000 · Jane Wanjiku");
    expect(card.text).toContain("(anachopokea) · kila mwezi");
    // Nairobi time, named as Kenyans name it, in Swahili too (never Intl's "GMT +3").
    expect(card.text).toMatch(/Tarehe: .+, 09:00 EAT/);
    expect(card.text).not.toContain("254790000000");
    expect(buttons(card)).toContain("💱 Pata bei");
    const paused = await pressAndEdit(wanjiku, card, "⏸ Sitisha kwa muda", /Imesitishwa/);
    expect(buttons(paused)).toEqual([]);
    await wanjiku.send("/repeats");
    const list = await wanjiku.nextMessage({ match: /Utumaji wako wa kurudia/ });
    expect(list.text).toContain("⏸ Imesitishwa");
    expect(buttons(list)).toContain("▶️ 1");
  });

  it("an owner who blocked the bot: the card cannot go out, and the repeat pauses instead of knocking every week", async () => {
    const dayo = stack.tg.user({ id: 7905, first_name: "Dayo" });
    const recipient = await withRecipient(stack, dayo, {
      corridor: "NG",
      method: "ngn_bank",
      label: "GTBANK PLC ••0003 · OLADEJI OLAOLU",
      details: { bankAccountNumber: "0149200003", bankAccountName: "OLADEJI OLAOLU", bankCode: "000013" },
    });
    dayo.block();
    const { repeat } = await repeatDue(stack, recipient, {
      amount: { amount: 500_000, currency: "NGNKOBO" },
      cadence: "week",
      anchor: "2026-03-02",
    });
    await expect.poll(async () => (await onlyRepeat(stack, dayo.id)).paused, { timeout: 15_000 }).toBe(true);
    expect(await stack.redis.zscore("repeats:due", repeat.id)).toBeNull();
    expect(dueCards(dayo)).toEqual([]);
  });
});
