import { randomBytes } from "node:crypto";
import { bech32 } from "@scure/base";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";

/** Long enough to copy it into the chat after a coffee; the refund flow refuses invoices about to expire. */
const EXPIRY_SECONDS = 3_600;

/**
 * The local person's stand-in for a Lightning wallet: a signet invoice for `sats`, signed by the sandbox's node key,
 * dated on the sandbox clock (so `:advance` does not make it look expired to the sandbox that pays it). Nobody holds
 * its preimage: the embedded sandbox "pays" it from its BTC wallet, which is all a refund needs to be seen.
 */
export function walletInvoice(sats: number, nowMs: number): string {
  return encodeInvoice({
    amountSats: sats,
    paymentHash: randomBytes(32),
    paymentSecret: randomBytes(32),
    description: "local wallet",
    timestamp: Math.floor(nowMs / 1000),
    expirySeconds: EXPIRY_SECONDS,
  });
}

/**
 * A fresh signet address of the local person's wallet (P2WPKH, `tb1q…`) to paste into /buy. Nobody holds its key:
 * the sandbox "sends" to it, which is all a purchase needs to be seen.
 */
export function walletAddress(): string {
  return bech32.encode("tb", [0, ...bech32.toWords(randomBytes(20))]);
}

/** "6754", "6,754" or "6_754" → 6754; anything else (zero, fractions, words, absurd sizes) → undefined. */
export function parseSats(text: string | undefined): number | undefined {
  const digits = (text ?? "").replace(/[,_]/g, "");
  if (!/^\d{1,15}$/.test(digits)) return undefined;
  const sats = Number(digits);
  return sats > 0 && sats <= 2_100_000_000_000_000 ? sats : undefined;
}
