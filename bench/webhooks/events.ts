import { createHash } from "node:crypto";
import type { NewOrder } from "#src/store/index.js";

/**
 * Synthetic NGN bank payouts and their two webhook events, in the shapes the sandbox sends
 * (src/standins/sandbox/domain/views.ts webhookTransaction: NGN `transactionMetadata`), deterministic per index so the
 * sender process can rebuild the same bodies from the order list alone.
 */
export interface SyntheticOrder {
  index: number;
  orderId: string;
  quoteId: string;
  hash: string;
  userId: number;
  receiveKobo: number;
  paySats: number;
  accountNumber: string;
}

const hex = (seed: string, length: number) =>
  createHash("sha256").update(seed).digest("hex").repeat(2).slice(0, length);

const uuid = (seed: string) => {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export function syntheticOrders(count: number, firstUserId: number, run: string): SyntheticOrder[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    // The API's order ids look like "56188-2561" (the events pipeline recognises that form).
    orderId: `${10_000 + index}-${1_000 + (index % 9_000)}`,
    quoteId: uuid(`${run}:quote:${index}`),
    hash: hex(`${run}:hash:${index}`, 64),
    userId: firstUserId + index,
    receiveKobo: 1_000_000 + (index % 100) * 1_000,
    paySats: 6_000 + (index % 100) * 6,
    accountNumber: `01${String(40_000_000 + index).padStart(8, "0")}`,
  }));
}

export function orderRecord(order: SyntheticOrder, now: number): NewOrder {
  return {
    orderId: order.orderId,
    quoteId: order.quoteId,
    hash: order.hash,
    kind: "payout",
    corridor: "NG",
    chatId: order.userId,
    userId: order.userId,
    pay: { amount: order.paySats, currency: "BTCSAT" },
    receive: { amount: order.receiveKobo, currency: "NGNKOBO" },
    fee: { amount: 60, currency: "BTCSAT" },
    recipientLabel: `GTBANK PLC ••${order.accountNumber.slice(-4)} · ADA OBI`,
    beneficiary: {
      bankAccountNumber: order.accountNumber,
      bankAccountName: "ADA OBI",
      bankCode: "000013",
      bankName: "GTBANK PLC",
    },
    verificationCode: "🦊🍋",
    expiresAt: new Date(now + 3_600_000).toISOString(),
  };
}

/** payment.received (DEPOSIT SUCCESS) then payment.sent (WITHDRAWAL SUCCESS), as raw JSON bodies. */
export function paymentEventBodies(order: SyntheticOrder, run: string): [string, string] {
  const at = new Date().toISOString();
  const transaction = (type: "DEPOSIT" | "WITHDRAWAL") => ({
    id: uuid(`${run}:tx:${type}:${order.index}`),
    walletId: uuid(`${run}:wallet:NGN`),
    ref: hex(`${run}:ref:${type}:${order.index}`, 29),
    hash: order.hash,
    amount: order.receiveKobo,
    fees: 0,
    currency: "NGN",
    type,
    status: "SUCCESS",
    autopayout: true,
    createdAt: at,
    updatedAt: at,
    transactionMetadata: {
      id: uuid(`${run}:meta:${type}:${order.index}`),
      orderId: order.orderId,
      bankCode: "000013",
      bankName: "GTBANK PLC",
      bankAccountName: "ADA OBI",
      bankAccountNumber: order.accountNumber,
      customerInternalFee: 0,
      customerReference: `bench-${order.index}`,
      createdAt: at,
      updatedAt: at,
    },
  });
  return [
    JSON.stringify({ event: "payment.received", data: transaction("DEPOSIT") }),
    JSON.stringify({ event: "payment.sent", data: transaction("WITHDRAWAL") }),
  ];
}
