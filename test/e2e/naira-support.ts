import type { Message } from "grammy/types";
import { expect } from "vitest";
import { formatMoney, toMajorString } from "#src/money/index.js";
import type { Stack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { codeOf, orderOf } from "./payout-support.ts";

/** The `copy_text` buttons of a naira quote card: the account number and the amount. */
export function copyTexts(message: Message): string[] {
  return (message.reply_markup?.inline_keyboard.flat() ?? []).flatMap((button) =>
    "copy_text" in button && button.copy_text ? [button.copy_text.text] : [],
  );
}

/** A naira quote card against the sandbox's one new quote: every figure is the quote's, to the kobo. */
export async function checkNairaCard(stack: Stack, card: Message, quotesBefore: number) {
  const order = await orderOf(stack, card);
  expect(stack.sandbox.state.quotes.size - quotesBefore).toBe(1);
  const quote = stack.sandbox.state.quotes.get(order.quoteId);
  if (!quote?.virtualAccount) throw new Error("no bank-transfer quote at the sandbox");
  expect(quote).toMatchObject({ sourceCurrency: "NGNKOBO", paymentMethod: "BANKTRANSFER", invoice: "" });
  expect(order.pay).toEqual({ amount: quote.total, currency: "NGNKOBO" });
  expect(order.fee).toEqual({ amount: quote.feesInSource, currency: "NGNKOBO" });
  expect(order.receive.amount).toBe(quote.amountInTarget);
  const text = card.text ?? "";
  expect(text).toContain(`Transfer exactly: ${formatMoney(quote.total, "NGNKOBO", "en")}`);
  expect(text).toContain(
    `= ${formatMoney(quote.total - quote.feesInSource, "NGNKOBO", "en")} exchanged + ${formatMoney(quote.feesInSource, "NGNKOBO", "en")} fee`,
  );
  expect(text).toContain(`Account number: ${quote.virtualAccount.accountNumber}`);
  expect(codeOf(card)).toBe(order.verificationCode);
  expect(copyTexts(card)).toEqual([
    quote.virtualAccount.accountNumber,
    toMajorString(quote.total, "NGNKOBO"),
  ]);
  return { order, quote };
}

/** Confirm a naira quote card, simulate the transfer, and wait for the status card to say it landed. */
export async function confirmAndTransfer(user: UserDriver, card: Message): Promise<Message> {
  await (await user.press(card, /Confirm/)).answer();
  const status = await user.nextMessage({ match: /Waiting for your transfer/ });
  await user.nextEdit(card, { match: /Confirmed/ });
  await (await user.press(status, "🧪 Simulate bank transfer")).answer();
  return user.nextEdit(status, { match: /Completed/ });
}
