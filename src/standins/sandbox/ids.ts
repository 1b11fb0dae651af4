import { randomBytes, randomInt, randomUUID } from "node:crypto";

/** Identifier shapes the real service uses (api-behaviour-notes §3). */

export function uuid(): string {
  return randomUUID();
}

export function randomHex(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString("hex")
    .slice(0, length);
}

export function random(size: number): Uint8Array {
  return new Uint8Array(randomBytes(size));
}

/** Transaction `ref`: 29 hex characters. */
export function transactionRef(): string {
  return randomHex(29);
}

/** Quote/order reference `NNNNN-NNNN`, unique within this sandbox. */
export function orderId(taken: (id: string) => boolean): string {
  for (;;) {
    const id = `${randomInt(10_000, 100_000)}-${randomInt(1_000, 10_000)}`;
    if (!taken(id)) return id;
  }
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const UPPER_DIGITS = `${UPPER}0123456789`;
const pad2 = (value: number) => String(value).padStart(2, "0");
const HOUR_MS = 3_600_000;

/** The sending institution in NIP session ids of the sandbox's naira payouts (a made-up NIP code). */
const NIP_SENDER_CODE = "999240";

/**
 * A NIP session id, as the recipient's bank statement shows a naira transfer: 30 digits, the sending institution's
 * 6-digit code, the Lagos time (UTC+1) as yyMMddHHmmss, then 12 random digits.
 */
export function nipSessionId(nowMs: number): string {
  const at = new Date(nowMs + HOUR_MS);
  const stamp = [
    at.getUTCFullYear() % 100,
    at.getUTCMonth() + 1,
    at.getUTCDate(),
    at.getUTCHours(),
    at.getUTCMinutes(),
    at.getUTCSeconds(),
  ]
    .map(pad2)
    .join("");
  const tail = Array.from({ length: 12 }, () => randomInt(0, 10)).join("");
  return `${NIP_SENDER_CODE}${stamp}${tail}`;
}

/**
 * An M-Pesa receipt (transaction code): 10 uppercase letters and digits. As Safaricom's, the first letter is the
 * year (A = 2006, so 2025 is T), the second the month (A–L), the third the day (1–9, then A–V), on Nairobi's
 * calendar (UTC+3); 7 random follow.
 */
export function mpesaReceipt(nowMs: number): string {
  const at = new Date(nowMs + 3 * HOUR_MS);
  const year = UPPER[(((at.getUTCFullYear() - 2006) % 26) + 26) % 26] ?? "A";
  const month = UPPER[at.getUTCMonth()] ?? "A";
  const day = "123456789ABCDEFGHIJKLMNOPQRSTUV"[at.getUTCDate() - 1] ?? "1";
  const tail = Array.from({ length: 7 }, () => UPPER_DIGITS[randomInt(0, UPPER_DIGITS.length)]).join("");
  return `${year}${month}${day}${tail}`;
}

/** A 10-digit NUBAN-looking account number. */
export function accountNumber(): string {
  return `${randomInt(1, 10)}${String(randomInt(0, 1_000_000_000)).padStart(9, "0")}`;
}
