import type { Message } from "grammy/types";
import type { Alerts } from "#src/bot/ops/alerts/alerts.js";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, type StackOptions, startStack } from "../support/stack.ts";
import type { GroupDriver, UserDriver } from "../support/telegram-driver.ts";

/**
 * The whole stack (ops wiring included, as app.ts does it) with an admin group with two admins and an ordinary member, and a restricted (non-ops) member.
 */
export const ADMIN_CHAT_ID = -1_001_777_000_001;

export interface OpsStack {
  stack: Stack;
  alerts: Alerts;
  group: GroupDriver;
  /** Two ops admins of the group and a plain member (members count as ops too). */
  ada: UserDriver;
  ben: UserDriver;
  cy: UserDriver;
  /** In the group but restricted: not ops. */
  rex: UserDriver;
  stop(): Promise<void>;
}

export async function startOpsStack(options: StackOptions = {}): Promise<OpsStack> {
  const stack = await startStack({ adminChatId: ADMIN_CHAT_ID, ...options });
  const alerts = stack.app.alerts;

  const { tg } = stack;
  const ada = tg.user({ id: 8_001, first_name: "Ada", username: "ada_ops", language_code: "en" });
  const ben = tg.user({ id: 8_002, first_name: "Ben", username: "ben_ops", language_code: "en" });
  const cy = tg.user({ id: 8_003, first_name: "Cy", language_code: "en" });
  const rex = tg.user({ id: 8_004, first_name: "Rex", language_code: "en" });
  const group = tg
    .group({ id: ADMIN_CHAT_ID, title: "Ops room" })
    .addMember(ada, "creator")
    .addMember(ben, "administrator")
    .addMember(cy, "member")
    .addMember(rex, "restricted");

  return {
    stack,
    alerts,
    group,
    ada,
    ben,
    cy,
    rex,
    async stop() {
      await stack.stop();
    },
  };
}

/** Buttons of a message as "label" strings (for readable assertions). */
export function buttonLabels(message: Message): string[] {
  return message.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];
}

/** A command in the group, then the bot's next message there. */
export async function ask(
  group: GroupDriver,
  from: UserDriver,
  text: string,
  match?: string | RegExp,
): Promise<Message> {
  await group.send(from, text);
  return group.nextMessage(match === undefined ? {} : { match });
}

/**
 * A real NGN payout quote at the sandbox, recorded (and confirmed) as the bot's payout flow does, without the chat
 * steps: for ops tests that need orders in every state.
 */
export async function placeNgnPayout(
  stack: Stack,
  userId: number,
  recipient: { accountNumber: string; accountName: string },
): Promise<OrderRecord> {
  const { app } = stack;
  const quote = await app.api.createQuote({
    amount: 1_000_000,
    sourceCurrency: "BTCSAT",
    targetCurrency: "NGNKOBO",
    paymentMethod: "LIGHTNING",
    paymentCurrency: "NGNKOBO",
    autopayout: true,
    beneficiary: {
      bankAccountNumber: recipient.accountNumber,
      bankAccountName: recipient.accountName,
      bankCode: "000013",
      bankName: "GTBANK PLC",
    },
  });
  return app.store.orders.create({
    orderId: quote.orderId!,
    quoteId: quote.id,
    hash: quote.hash!,
    kind: "payout",
    corridor: "NG",
    chatId: userId,
    userId,
    pay: { amount: quote.amountInSourceCurrency, currency: "BTCSAT" },
    receive: { amount: quote.amountInTargetCurrency, currency: "NGNKOBO" },
    fee: { amount: quote.transactionFeesInSourceCurrency ?? 0, currency: "BTCSAT" },
    recipientLabel: `GTBANK PLC ••${recipient.accountNumber.slice(-4)} · ${recipient.accountName}`,
    verificationCode: "🦊🍋",
    expiresAt: quote.expiry,
    confirmedAt: new Date().toISOString(),
    // Its messages count as delivered (the flow records that once they are out): the pipeline sends its card.
    deliveredAt: new Date().toISOString(),
  });
}
