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

/** A 10-digit NUBAN-looking account number. */
export function accountNumber(): string {
  return `${randomInt(1, 10)}${String(randomInt(0, 1_000_000_000)).padStart(9, "0")}`;
}
