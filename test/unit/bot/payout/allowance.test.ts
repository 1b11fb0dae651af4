import { describe, expect, it } from "vitest";
import { usedToday } from "#src/bot/payout/allowance.js";
import { localDay } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";

const order = (overrides: Partial<OrderRecord>): OrderRecord => ({
  orderId: "o-1",
  quoteId: "q-1",
  hash: "h",
  kind: "payout",
  corridor: "NG",
  chatId: 1,
  userId: 1,
  stage: "completed",
  pay: { amount: 6_000, currency: "BTCSAT" },
  receive: { amount: 1_000_000, currency: "NGNKOBO" },
  fee: { amount: 60, currency: "BTCSAT" },
  recipientLabel: "GTBANK PLC ••0000 · ADA",
  verificationCode: "🦊🍋",
  expiresAt: "2026-11-22T10:05:00Z",
  createdAt: "2026-11-22T10:00:00Z",
  updatedAt: "2026-11-22T10:01:00Z",
  confirmedAt: "2026-11-22T10:00:30Z",
  ...overrides,
});

describe("daily allowance", () => {
  it("days are the corridor's calendar days", () => {
    // 23:30 UTC is already the next day in Lagos (UTC+1) and Nairobi (UTC+3), not yet in Accra (UTC+0).
    const late = Date.parse("2026-11-21T23:30:00Z");
    expect(localDay(late, "NG")).toBe("2026-11-22");
    expect(localDay(late, "KE")).toBe("2026-11-22");
    expect(localDay(late, "GH")).toBe("2026-11-21");
  });

  it("counts what confirmed payouts of the corridor deliver today, nothing else", () => {
    const now = Date.parse("2026-11-22T15:00:00Z");
    const orders = [
      order({ orderId: "done" }),
      order({
        orderId: "paying",
        stage: "awaiting_payment",
        receive: { amount: 500_000, currency: "NGNKOBO" },
      }),
      order({ orderId: "unconfirmed", stage: "awaiting_payment", confirmedAt: undefined }),
      order({ orderId: "expired", stage: "expired" }),
      order({ orderId: "failed", stage: "failed" }),
      order({ orderId: "yesterday", confirmedAt: "2026-11-21T22:59:00Z" }), // 23:59 in Lagos
      order({ orderId: "just-after-midnight", confirmedAt: "2026-11-21T23:01:00Z" }), // 00:01 in Lagos
      order({ orderId: "kenya", corridor: "KE", receive: { amount: 90_000, currency: "KESCENT" } }),
      order({ orderId: "buy", kind: "buy" }),
    ];
    expect(usedToday(orders, "NG", now)).toBe(1_000_000 + 500_000 + 1_000_000);
    expect(usedToday(orders, "NG", now, "paying")).toBe(2_000_000);
    expect(usedToday(orders, "KE", now)).toBe(90_000);
    expect(usedToday(orders, "GH", now)).toBe(0);
  });
});
