import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttonLabels, type OpsStack, startOpsStack } from "./admin-stack.ts";
import { buttons, orderOf, pressAndEdit, startSend, typeAndRead } from "./payout-support.ts";

/**
 * "Get my naira back" end to end: a naira-funded payout to M-Pesa that fails after the naira arrived (a phone ending
 * 999 in the sandbox), refunded to a Nigerian bank account the user names — bank search, name enquiry, the name
 * shown before confirming — by one POST /withdraw, at once below the threshold and only after a second admin
 * approves above it. Withdrawals are counted at the sandbox.
 */
const THRESHOLD_KOBO = 3_000_000;

describe("refunds of naira-funded payouts", () => {
  let ops: OpsStack;

  beforeAll(async () => {
    ops = await startOpsStack({
      env: { NGN_REFUND_APPROVAL_THRESHOLD_KOBO: String(THRESHOLD_KOBO), SUPPORT_CONTACT: "@payouts_help" },
    });
  });
  afterAll(async () => {
    await ops?.stop();
  });

  const bankWithdrawals = () =>
    ops.stack.sandbox.state.transactions.filter((tx) => tx.origin === "withdraw" && tx.currency === "NGN");
  const naira = (kobo: number) => formatMoney(kobo, "NGNKOBO", "en");

  const dataOf = (message: Message): string => {
    const button = message.reply_markup?.inline_keyboard[0]?.[0];
    if (!button || !("callback_data" in button) || !button.callback_data) throw new Error("no button");
    return button.callback_data;
  };

  /** KES to an M-Pesa number ending 999, paid by the simulated bank transfer, failed at the sandbox. */
  async function failedNairaPayout(user: UserDriver, shillings: string) {
    const countries = await startSend(user);
    const methods = await pressAndEdit(user, countries, /Kenya/, /How should the money arrive/);
    await pressAndEdit(user, methods, /M-Pesa \/ Airtel phone/, /phone number/);
    const network = await typeAndRead(user, "0790 000 999", /Which wallet/);
    await pressAndEdit(user, network, "✅ M-Pesa", /name/);
    const amount = await typeAndRead(user, "Jane Wanjiku", /How much/);
    await pressAndEdit(user, amount, "🏦 Naira bank transfer", /Naira bank transfer/);
    const quote = await typeAndRead(user, shillings, /Your quote/);
    const placed = await orderOf(ops.stack, quote);
    await (await user.press(quote, /Confirm/)).answer();
    const status = await user.nextMessage({ match: /Waiting for your transfer/ });
    await expect
      .poll(async () => (await ops.stack.app.store.orders.get(placed.orderId))?.statusMessageId)
      .toBe(status.message_id);
    await (await user.press(status, "🧪 Simulate bank transfer")).answer();
    const card = await user.nextEdit(status, { match: /Failed/ });
    const order = (await ops.stack.app.store.orders.get(placed.orderId)) as OrderRecord;
    return { order, card };
  }

  /** From the button to the confirm screen: bank by name, account number, the enquired name shown. */
  async function nameAccount(user: UserDriver, card: Message, order: OrderRecord): Promise<Message> {
    // A double tap opens one flow; the second press is told what the bot waits for.
    const first = await user.press(card, /Get my naira back/);
    const second = await user.press(card, /Get my naira back/);
    await first.answer();
    expect((await second.answer()).text).toMatch(/which bank account the naira go back to/);
    const intro = await user.nextMessage({ match: /Get your naira back/ });
    expect(intro.text).toContain(naira(order.pay.amount));
    await user.nextMessage({ match: /Which bank/ });
    await user.send("gtbank");
    const pick = await user.nextMessage({ match: /Which one is your bank/ });
    await (await user.press(pick, "GTBANK PLC")).answer();
    await user.nextMessage({
      match: /10-digit account number at GTBANK PLC/,
    });
    await user.send("01234");
    await user.nextMessage({ match: /exactly 10 digits/ });
    await user.send("0149200000");
    const confirm = await user.nextMessage({ match: /Is this your account/ });
    expect(confirm.text).toContain("Name: OLADEJI OLAOLU");
    expect(confirm.text).toContain("Account: ••••0000");
    expect(confirm.text).toContain(`Amount: ${naira(order.pay.amount)}`);
    return confirm;
  }

  it("below the threshold: one POST /withdraw of exactly the naira received, a card and a receipt", async () => {
    const user = ops.stack.tg.user({ id: 9_301, first_name: "Ngozi", language_code: "en" });
    const { order, card } = await failedNairaPayout(user, "1,500");
    expect(order.pay.amount).toBeLessThanOrEqual(THRESHOLD_KOBO);
    expect(card.text).toContain("tap “Get my naira back”");
    expect(buttons(card)).toEqual(["💸 Get my naira back"]);
    const buttonData = dataOf(card);
    // What is refunded is what arrived: the order's own NGN DEPOSIT at the provider.
    const deposit = ops.stack.sandbox.state.transactions.find(
      (tx) => tx.quoteId === order.quoteId && tx.type === "DEPOSIT",
    );
    expect(deposit).toMatchObject({ currency: "NGN", amount: order.pay.amount });

    const confirm = await nameAccount(user, card, order);
    const before = bankWithdrawals().length;
    const yes = await user.press(confirm, /Yes, send the refund here/);
    const again = await user.press(confirm, /Yes, send the refund here/);
    await yes.answer();
    await again.answer();
    const refundCard = await user.nextMessage({ match: /Refund ·/ });
    expect(refundCard.text).toContain(`Amount: ${naira(order.pay.amount)}`);
    expect(refundCard.text).toMatch(/To: GTBANK PLC · ••••0000 · OLADEJI OLAOLU/);
    const paid = await user.nextEdit(refundCard, { match: /Refunded\./ });
    expect(paid.text).toContain("on their way to your bank account");
    expect(paid.text).toMatch(/Reference: \S+/);
    const receipt = await user.nextMessage({ match: /Refund receipt/ });
    expect(receipt.text).toContain(`Amount refunded: ${naira(order.pay.amount)}`);
    expect(receipt.text).toContain("••••0000 · OLADEJI OLAOLU");
    await user.nextEdit(card, { match: /has been sent back to your bank account/ });

    const made = bankWithdrawals().slice(before);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ amount: deposit?.amount, status: "SUCCESS" });
    expect(made[0]?.beneficiary).toMatchObject({
      bankAccountNumber: "0149200000",
      bankAccountName: "OLADEJI OLAOLU",
    });
    expect(await ops.stack.app.store.refunds.get(order.orderId)).toMatchObject({
      state: "paid",
      attempt: 1,
      currency: "NGNKOBO",
      destinationKind: "bank",
      amountSats: order.pay.amount,
    });

    // A second attempt (the button's data, as an old copy of the card carries it) opens nothing more.
    const later = await user.pressData(card, buttonData);
    expect((await later.answer()).text).toMatch(/already under way or done/);
    expect(bankWithdrawals()).toHaveLength(before + 1);
  });

  it("above the threshold: nothing until a second admin approves; the requester cannot approve", async () => {
    // The customer here is an ops admin too: four eyes still need someone else.
    const user = ops.ada;
    const { order, card } = await failedNairaPayout(user, "4,000");
    expect(order.pay.amount).toBeGreaterThan(THRESHOLD_KOBO);
    const confirm = await nameAccount(user, card, order);
    const before = bankWithdrawals().length;
    await (await user.press(confirm, /Yes, send the refund here/)).answer();
    const refundCard = await user.nextMessage({ match: /Refund ·/ });
    expect(refundCard.text).toContain("Waiting for approval");
    const request = await ops.group.nextMessage({
      match: (message) => !!message.text?.includes(`Order ${order.orderId}`),
    });
    expect(request.text).toContain(naira(order.pay.amount));
    expect(request.text).toContain("OLADEJI OLAOLU");
    expect(request.text).toContain("Requested by @ada_ops");
    expect(request.text).toContain("payout failed, naira held");
    expect(buttonLabels(request)).toEqual(["✅ Approve", "✖️ Reject"]);
    const alert = await ops.group.nextMessage({
      match: (message) => !!message.text?.includes(`Refund for order ${order.orderId}`),
    });
    expect(alert.text).toContain(`${naira(order.pay.amount)}): waiting for approval`);
    expect(bankWithdrawals()).toHaveLength(before);

    const own = await ops.group.press(ops.ada, request, "✅ Approve");
    expect((await own.answer()).text).toMatch(/another admin must approve it/);
    expect(bankWithdrawals()).toHaveLength(before);
    expect((await ops.stack.app.store.refunds.get(order.orderId))?.state).toBe("awaiting_approval");

    const first = await ops.group.press(ops.ben, request, "✅ Approve");
    const second = await ops.group.press(ops.ben, request, "✅ Approve");
    expect((await first.answer()).text).toMatch(/Approved — sending now/);
    expect((await second.answer()).text).toMatch(/Already approved/);
    await user.nextEdit(refundCard, { match: /Refunded\./ });
    await user.nextMessage({ match: /Refund receipt/ });
    const made = bankWithdrawals().slice(before);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ amount: order.pay.amount });
    expect((await ops.stack.app.store.refunds.get(order.orderId))?.state).toBe("paid");
  });

  it("a stranger cannot refund someone else's order", async () => {
    const owner = ops.stack.tg.user({ id: 9_303, first_name: "Bola", language_code: "en" });
    const { order, card } = await failedNairaPayout(owner, "1,200");
    const stranger = ops.stack.tg.user({ id: 9_304, first_name: "Musa", language_code: "en" });
    const data = dataOf(card);
    // A modified client sends the owner's button data from the stranger's own chat.
    await stranger.send("/start");
    const own = await stranger.nextMessage();
    const press = await stranger.pressData(own, data);
    expect((await press.answer()).text).toMatch(/not in your history/);
    expect(await ops.stack.app.store.refunds.get(order.orderId)).toBeUndefined();
  });
});
