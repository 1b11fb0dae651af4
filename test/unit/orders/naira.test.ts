import { beforeAll, describe, expect, it } from "vitest";
import { createTranslator, type TFunction } from "#src/i18n/index.js";
import { createLogger } from "#src/log/logger.js";
import { breakdownLines, transactionFits, transitionFromApiState } from "#src/orders/index.js";

/** A naira-funded payout (NGN→KES): ₦17,409.82 paid, ₦102.12 of it the fee, KSh 1,500.00 to the recipient. */
const order = {
  kind: "payout" as const,
  pay: { amount: 1_740_982, currency: "NGNKOBO" },
  fee: { amount: 10_212, currency: "NGNKOBO" },
  receive: { amount: 150_000, currency: "KESCENT" },
  hash: "68dd8ced9145820012b30903",
};

describe("naira-funded payouts: which transactions are the order's", () => {
  it("takes the NGN DEPOSIT of its total kobo and the WITHDRAWAL of its target amount, nothing else", () => {
    const fits = (facts: Record<string, unknown>) => transactionFits({ onchain: false, ...facts }, order);
    expect(fits({ type: "DEPOSIT", currency: "NGN", amount: 1_740_982 })).toBe(true);
    expect(fits({ type: "WITHDRAWAL", currency: "KES", amount: 150_000 })).toBe(true);
    // The shape of a Lightning-paid order's deposit (target currency and amount) is not this order's.
    expect(fits({ type: "DEPOSIT", currency: "KES", amount: 150_000 })).toBe(false);
    expect(fits({ type: "DEPOSIT", currency: "NGN", amount: 1_740_900 })).toBe(false);
    expect(fits({ type: "WITHDRAWAL", currency: "NGN", amount: 1_740_982 })).toBe(false);
    expect(fits({ type: "WITHDRAWAL", currency: "KES", amount: 149_900 })).toBe(false);
    expect(fits({ type: "DEPOSIT" })).toBe(true);
  });

  it("reconciles: the naira received, then delivered", () => {
    const base = {
      order: { ...order, stage: "awaiting_payment" as const, expiresAt: "2026-01-01T00:10:00Z" },
    };
    const deposit = { type: "DEPOSIT", status: "SUCCESS", currency: "NGN", amount: 1_740_982 };
    const withdrawal = { type: "WITHDRAWAL", status: "SUCCESS", currency: "KES", amount: 150_000, ref: "R1" };
    const now = Date.parse("2026-01-01T00:05:00Z");
    expect(transitionFromApiState({ ...base, apiOrder: undefined, transactions: [deposit], now })).toEqual({
      stage: "payment_received",
    });
    expect(
      transitionFromApiState({ ...base, apiOrder: undefined, transactions: [deposit, withdrawal], now }),
    ).toMatchObject({ stage: "completed", payoutReference: "R1" });
  });
});

describe("naira-funded payouts: the money lines", () => {
  let en: TFunction;
  beforeAll(async () => {
    en = (await createTranslator({ logger: createLogger({ level: "silent", pretty: false }) })).t("en");
  });

  it("splits the naira into what is exchanged and the fee, and gives the rate both ways", () => {
    const { breakdown, rate } = breakdownLines(order, en, "en");
    expect(breakdown).toContain("= ₦17,307.70 exchanged + ₦102.12 fee");
    // 150 000 / 1 730 770 = 0.08667 KSh per naira; 1 730 770 / 150 000 = 11.538 naira per shilling.
    expect(rate).toBe("💱 Your rate: ₦1 = KSh 0.0867 · KSh 1 = ₦11.54");
  });
});
