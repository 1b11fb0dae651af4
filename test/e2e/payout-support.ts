import type { Message } from "grammy/types";
import { expect } from "vitest";
import type { Stack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

/**
 * Driving the payout flow the way a person does: type, press, read what changed. A pressed screen is edited in
 * place (`nextEdit`), typed input gets a new screen (`nextMessage`); each helper returns the screen to act on.
 */

export function buttons(message: Message | undefined): string[] {
  return message?.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];
}

/** The same message as it is now (edits applied). */
export function current(user: UserDriver, message: Message): Message {
  const now = user.message(message.message_id);
  if (!now) throw new Error(`message ${message.message_id} is gone`);
  return now;
}

/** Press and wait for the in-place edit of that message that shows `match`. */
export async function pressAndEdit(
  user: UserDriver,
  message: Message,
  button: string | RegExp,
  match?: string | RegExp,
): Promise<Message> {
  const press = await user.press(message, button);
  await press.answer();
  return user.nextEdit(message, match === undefined ? {} : { match });
}

/** Type something and wait for the bot's next new message (the next screen, or an error screen). */
export async function typeAndRead(user: UserDriver, text: string, match?: string | RegExp): Promise<Message> {
  await user.send(text);
  return user.nextMessage(match === undefined ? {} : { match });
}

export async function startSend(user: UserDriver): Promise<Message> {
  await user.send("/send");
  return user.nextMessage({ match: /Where does it go/ });
}

/** /send → Nigeria → bank by search → account → verified name confirmed; returns the amount prompt. */
export async function nigerianRecipient(
  user: UserDriver,
  options: { search?: string; bank?: string; account?: string } = {},
): Promise<Message> {
  const countries = await startSend(user);
  const bankPrompt = await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
  expect(bankPrompt.message_id).toBe(countries.message_id);
  const results = await typeAndRead(user, options.search ?? "gtb", /Banks matching/);
  await pressAndEdit(user, results, options.bank ?? "GTBANK PLC", /10-digit account number/);
  const confirm = await typeAndRead(user, options.account ?? "0149200000", /belongs to/);
  return pressAndEdit(user, confirm, /Yes, that's them/, /How much/);
}

/** /send → Nigeria → someone this user already sent to (offered before the bank step); returns the amount prompt. */
export async function knownNigerianRecipient(user: UserDriver, label: string | RegExp): Promise<Message> {
  const countries = await startSend(user);
  const known = await pressAndEdit(user, countries, /Nigeria/, /Who should receive the money/);
  return pressAndEdit(user, known, label, /How much/);
}

/** Type the amount and read the quote card. */
export async function quoteFor(user: UserDriver, amount: string): Promise<Message> {
  return typeAndRead(user, amount, /Your quote/);
}

export interface Invoice {
  photo: Message;
  invoice: Message;
  status: Message;
}

/** Confirm a quote card: the QR photo, the BOLT11 text and the status card follow. */
export async function confirmQuote(user: UserDriver, card: Message): Promise<Invoice> {
  const press = await user.press(card, /Confirm/);
  await press.answer();
  const photo = await user.nextPhoto();
  const invoice = await user.nextMessage({ match: /^ln/ });
  const status = await user.nextMessage({ match: /Waiting for payment/ });
  return { photo, invoice, status };
}

/** The code shown on the quote card ("code 🦁🌵"). */
export function codeOf(message: Message): string {
  const match = /code (\S+)/u.exec(message.text ?? message.caption ?? "");
  if (!match?.[1]) throw new Error("no verification code on the message");
  return match[1];
}

/** The order id in a quote card's Confirm button. */
export function orderIdOf(card: Message): string {
  const data = card.reply_markup?.inline_keyboard
    .flat()
    .map((button) => ("callback_data" in button ? button.callback_data : undefined))
    .find((value) => value?.startsWith("po-ok:"));
  if (!data) throw new Error("no Confirm button on the card");
  return data.slice("po-ok:".length);
}

/** The stored order behind a quote card, once the bot has recorded which message shows it. */
export async function orderOf(stack: Stack, card: Message) {
  const orderId = orderIdOf(card);
  await expect.poll(async () => (await stack.app.store.orders.get(orderId))?.quoteMessageId).toBeDefined();
  const order = await stack.app.store.orders.get(orderId);
  if (!order) throw new Error("order not stored");
  return order;
}

export function quoteCount(stack: Stack): number {
  return stack.sandbox.state.quotes.size;
}
