import type { Message } from "grammy/types";
import type { OrderRecord } from "#src/store/index.js";
import { type Stack, type StackOptions, startStack } from "../support/stack.ts";
import type { GroupDriver, UserDriver } from "../support/telegram-driver.ts";

/**
 * The whole stack (ops wiring included, as app.ts does it) with an ops group: three ops admins (listed in
 * ADMIN_USER_IDS and administrators of the group), and three who are not ops — a listed plain member, an
 * administrator nobody listed and a restricted member.
 */
export const ADMIN_CHAT_ID = -1_001_777_000_001;

/** ADMIN_USER_IDS of the stack: ada, ben, cy and mel (more may be added with `adminUserIds`). */
const LISTED = [8_001, 8_002, 8_003, 8_005];

export interface OpsStack {
  stack: Stack;
  /** The periodic ops check, run now. */
  alerts: { check(): Promise<unknown> };
  group: GroupDriver;
  /** The ops admins: the group's creator and two administrators, all listed. */
  ada: UserDriver;
  ben: UserDriver;
  cy: UserDriver;
  /** Listed in ADMIN_USER_IDS but only a member of the group: not ops. */
  mel: UserDriver;
  /** An administrator of the group nobody listed: not ops. */
  ike: UserDriver;
  /** In the group but restricted: not ops. */
  rex: UserDriver;
  stop(): Promise<void>;
}

export async function startOpsStack(options: StackOptions = {}): Promise<OpsStack> {
  const stack = await startStack({
    adminChatId: ADMIN_CHAT_ID,
    ...options,
    adminUserIds: [...LISTED, ...(options.adminUserIds ?? [])],
  });
  const alerts = { check: () => stack.app.job("ops-checks").run() };

  const { tg } = stack;
  const ada = tg.user({ id: 8_001, first_name: "Ada", username: "ada_ops", language_code: "en" });
  const ben = tg.user({ id: 8_002, first_name: "Ben", username: "ben_ops", language_code: "en" });
  const cy = tg.user({ id: 8_003, first_name: "Cy", language_code: "en" });
  const rex = tg.user({ id: 8_004, first_name: "Rex", language_code: "en" });
  const mel = tg.user({ id: 8_005, first_name: "Mel", username: "mel_ops", language_code: "en" });
  const ike = tg.user({ id: 8_006, first_name: "Ike", username: "ike_admin", language_code: "en" });
  const group = tg
    .group({ id: ADMIN_CHAT_ID, title: "Ops room" })
    .addMember(ada, "creator")
    .addMember(ben, "administrator")
    .addMember(cy, "administrator")
    .addMember(mel, "member")
    .addMember(ike, "administrator")
    .addMember(rex, "restricted");

  return {
    stack,
    alerts,
    group,
    ada,
    ben,
    cy,
    mel,
    ike,
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
 * `from` walks /withdraw_ngn for `amount` (as typed) to GTBANK PLC 0149200000 and requests approval; resolves to
 * the request's card in the group.
 */
export async function requestNgnWithdrawal(
  ops: OpsStack,
  from: UserDriver,
  amount: string,
): Promise<Message> {
  const { group } = ops;
  const amountPrompt = await ask(group, from, "/withdraw_ngn", /NGN withdrawal/);
  await group.send(from, amount, { replyTo: amountPrompt });
  const bankPrompt = await group.nextMessage({ match: /bank's name/ });
  await group.send(from, "gtbank", { replyTo: bankPrompt });
  const pick = await group.nextMessage({ match: /Which bank/ });
  await group.press(from, pick, "GTBANK PLC · 000013");
  const accountPrompt = await group.nextMessage({ match: /10-digit account number at GTBANK PLC/ });
  await group.send(from, "0149200000", { replyTo: accountPrompt });
  const screen = await group.nextMessage({ match: /Check every detail/ });
  await group.press(from, screen, "✅ Request approval");
  return group.nextMessage({ match: /Needs approval by another admin/ });
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
