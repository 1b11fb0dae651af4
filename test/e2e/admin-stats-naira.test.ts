import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { formatMoney } from "#src/money/index.js";
import { quoteAmounts } from "#src/orders/quote-math.js";
import type { OrderRecord } from "#src/store/index.js";
import { ask, type OpsStack, placeNgnPayout, startOpsStack } from "./admin-stack.ts";

/** /stats and its chart tell naira-funded payouts apart: their count and the naira they brought in. */
const LOCALE = "en-NG";

describe("/stats with naira-funded payouts", () => {
  let ops: OpsStack;
  let naira: OrderRecord;

  /** A KES payout funded by a naira bank transfer, quoted at the sandbox and recorded as the flow records it. */
  async function placeNairaPayout(userId: number): Promise<OrderRecord> {
    const { app } = ops.stack;
    const beneficiary = {
      identifierType: "paytophone",
      identifiers: { phoneNumber: "+254790000000", accountName: "Jane Wanjiku", network: "mpesa" },
    };
    const quote = await app.api.createQuote({
      amount: 150_000,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "KESCENT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "KESCENT",
      autopayout: true,
      beneficiary,
    } as Parameters<typeof app.api.createQuote>[0]);
    const { pay, fee, receive } = quoteAmounts(quote);
    return app.store.orders.create({
      orderId: quote.orderId!,
      quoteId: quote.id,
      hash: quote.hash || quote.id,
      kind: "payout",
      corridor: "KE",
      chatId: userId,
      userId,
      pay: { amount: pay, currency: "NGNKOBO" },
      receive: { amount: receive, currency: "KESCENT" },
      fee: { amount: fee, currency: "NGNKOBO" },
      recipientLabel: "M-Pesa ••0000 · Jane Wanjiku",
      beneficiary,
      verificationCode: "🦊🍋",
      payIn: {
        bankName: quote.bankName!,
        accountNumber: quote.ngnBankAccountNumber!,
        accountName: quote.ngnAccountName!,
      },
      expiresAt: quote.expiry,
      confirmedAt: new Date().toISOString(),
      deliveredAt: new Date().toISOString(),
    });
  }

  beforeAll(async () => {
    ops = await startOpsStack();
    const customer = ops.stack.tg.user({ id: 8_201, first_name: "Chidi", language_code: "en" });
    await customer.send("/start");
    await customer.nextMessage();
    await placeNgnPayout(ops.stack, 8_201, { accountNumber: "0149200000", accountName: "OLADEJI OLAOLU" });
    naira = await placeNairaPayout(8_201);
    await placeNairaPayout(8_201);
    await ops.stack.app.api.simulatePayIn({
      quoteId: naira.quoteId,
      currency: "NGN",
      amount: naira.pay.amount,
    });
    await vi.waitFor(
      async () => expect((await ops.stack.app.store.orders.get(naira.orderId))?.stage).toBe("completed"),
      { timeout: 20_000, interval: 100 },
    );
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("counts naira-funded payouts and their ₦ volume apart from Lightning-paid ones, in the text and the chart", async () => {
    const stats = await ask(ops.group, ops.ada, "/stats");
    const text = stats.text ?? "";
    const paid = formatMoney(naira.pay.amount, "NGNKOBO", LOCALE);
    const delivered = formatMoney(naira.receive.amount, "KESCENT", LOCALE);
    expect(text).toContain(
      `KE payouts paid in naira · orders: 2, completed: 1 · paid ${paid} · delivered ${delivered}`,
    );
    expect(text).toContain("NG payouts · orders: 1, completed: 0");
    for (const window of ["Today (UTC)", "Last 7 days", "Last 30 days"]) {
      const block = text.slice(text.indexOf(window));
      expect(block).toContain(`🏦 Paid in naira: orders: 2, completed: 1 · naira paid in ${paid}`);
    }
    const chart = await ops.group.nextPhoto();
    expect(chart.caption).toContain(
      `KE payouts paid in naira: 1 completed · 0 failed · paid ${paid} · delivered ${delivered}`,
    );
  });
});
