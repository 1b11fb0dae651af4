import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, hex, utf8 } from "@scure/base";

/**
 * A small BOLT11 encoder: enough to issue real, signed, decodable signet invoices (`lntbs…`) for
 * Lightning quotes. Fields: timestamp, p (payment hash), s (payment secret), d (description) or h
 * (description hash, as LNURL-pay invoices carry), x (expiry), c (min final CLTV), n (payee), 9 (features).
 * Signed by the sandbox node key.
 */

interface InvoiceInput {
  /** null makes an amountless invoice (the sandbox never issues one; tests use it). */
  amountSats: number | null;
  paymentHash: Uint8Array;
  paymentSecret: Uint8Array;
  description: string;
  /** When set, the invoice commits to sha256 of a long description (tag h, as LNURL-pay) instead of tag d. */
  descriptionHash?: Uint8Array;
  /** Unix seconds. */
  timestamp: number;
  expirySeconds: number;
  /** bech32 network prefix: "tbs" (signet), "tb" (testnet), "bc" (mainnet). */
  network?: string;
  minFinalCltvExpiry?: number;
}

/** A fixed key so that invoices from every sandbox run are signed by the same "node". */
const SANDBOX_NODE_SECRET = sha256(utf8.decode("mavapay-sandbox-lightning-node"));
export const SANDBOX_NODE_PUBKEY = secp256k1.getPublicKey(SANDBOX_NODE_SECRET, true);

const TAG = { p: 1, s: 16, d: 13, h: 23, x: 6, c: 24, n: 19, features: 5 } as const;

/** Shortest exact amount part of the human-readable prefix: 6016 sats → "60160n", 10000 → "100u". */
export function amountPrefix(sats: number): string {
  if (!Number.isSafeInteger(sats) || sats <= 0) throw new RangeError("invoice amount must be positive sats");
  const nano = BigInt(sats) * 10n; // 1 sat = 10 nano-BTC
  if (nano % 1_000_000_000n === 0n) return `${nano / 1_000_000_000n}`;
  if (nano % 1_000_000n === 0n) return `${nano / 1_000_000n}m`;
  if (nano % 1_000n === 0n) return `${nano / 1_000n}u`;
  return `${nano}n`;
}

function intToWords(value: number, minWords = 1): number[] {
  const words: number[] = [];
  let rest = value;
  while (rest > 0) {
    words.unshift(rest & 31);
    rest = Math.floor(rest / 32);
  }
  while (words.length < minWords) words.unshift(0);
  return words;
}

function tagged(tag: number, data: number[]): number[] {
  if (data.length >= 1024) throw new RangeError("tagged field too long");
  return [tag, ...intToWords(data.length, 2), ...data];
}

/** 5-bit words → bytes, zero-padding the tail (what BOLT11 signs). */
function wordsToBytesPadded(words: number[]): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const word of words) {
    acc = (acc << 5) | word;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Uint8Array.from(out);
}

export function encodeInvoice(input: InvoiceInput, nodeSecret: Uint8Array = SANDBOX_NODE_SECRET): string {
  if (input.paymentHash.length !== 32) throw new RangeError("payment hash must be 32 bytes");
  if (input.paymentSecret.length !== 32) throw new RangeError("payment secret must be 32 bytes");
  const amount = input.amountSats === null ? "" : amountPrefix(input.amountSats);
  const hrp = `ln${input.network ?? "tbs"}${amount}`;
  const payee = secp256k1.getPublicKey(nodeSecret, true);
  // Features: var_onion_optin (bit 8) and payment_secret (bit 14), both required.
  const features = intToWords((1 << 8) | (1 << 14));
  const data = [
    ...intToWords(input.timestamp, 7),
    ...tagged(TAG.p, bech32.toWords(input.paymentHash)),
    ...tagged(TAG.s, bech32.toWords(input.paymentSecret)),
    ...(input.descriptionHash
      ? tagged(TAG.h, bech32.toWords(input.descriptionHash))
      : tagged(TAG.d, bech32.toWords(utf8.decode(input.description)))),
    ...tagged(TAG.x, intToWords(input.expirySeconds)),
    ...tagged(TAG.c, intToWords(input.minFinalCltvExpiry ?? 80)),
    ...tagged(TAG.n, bech32.toWords(payee)),
    ...tagged(TAG.features, features),
  ];
  const preimage = new Uint8Array([...utf8.decode(hrp), ...wordsToBytesPadded(data)]);
  const digest = sha256(preimage);
  // noble's "recovered" format is recovery‖r‖s; BOLT11 wants r‖s‖recovery.
  const recovered = secp256k1.sign(digest, nodeSecret, { prehash: false, format: "recovered" });
  const signature = new Uint8Array(65);
  signature.set(recovered.subarray(1, 65), 0);
  signature[64] = recovered[0] ?? 0;
  return bech32.encode(hrp, [...data, ...bech32.toWords(signature)], false);
}

/** Random preimage, its hash (the quote hash) and a payment secret. */
export function newPaymentSecrets(random: (size: number) => Uint8Array): {
  preimage: string;
  paymentHash: Uint8Array;
  paymentHashHex: string;
  paymentSecret: Uint8Array;
} {
  const preimage = random(32);
  const paymentHash = sha256(preimage);
  return {
    preimage: hex.encode(preimage),
    paymentHash,
    paymentHashHex: hex.encode(paymentHash),
    paymentSecret: random(32),
  };
}
