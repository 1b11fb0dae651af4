import { decode } from "light-bolt11-decoder";

/** What the sandbox needs from a BOLT11 invoice someone else gave it. */
interface DecodedInvoice {
  network: string;
  /** null for an amountless invoice. */
  amountSats: number | null;
  paymentHash: string;
  timestamp: number;
  /** Unix seconds after which the invoice is expired (default expiry 3600 s). */
  expiresAt: number;
  /** The `d` tag, "" when the invoice commits to a description hash instead. */
  description: string;
}

export class InvoiceError extends Error {}

export function decodeInvoice(invoice: string): DecodedInvoice {
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(invoice.trim());
  } catch (error) {
    throw new InvoiceError(
      `Invalid Lightning invoice (${error instanceof Error ? error.message : "undecodable"})`,
    );
  }
  let network = "";
  let msat: string | undefined;
  let paymentHash = "";
  let timestamp = 0;
  let expiry = 3600;
  let description = "";
  for (const section of decoded.sections) {
    if (section.name === "coin_network") network = section.letters;
    else if (section.name === "amount") msat = section.value;
    else if (section.name === "payment_hash") paymentHash = section.value;
    else if (section.name === "timestamp") timestamp = section.value;
    else if (section.name === "expiry") expiry = section.value;
    else if (section.name === "description") description = section.value;
  }
  if (!paymentHash) throw new InvoiceError("Invalid Lightning invoice (no payment hash)");
  let amountSats: number | null = null;
  if (msat !== undefined) {
    const value = BigInt(msat);
    if (value % 1000n !== 0n) throw new InvoiceError("Invoice amount must be a whole number of sats");
    amountSats = Number(value / 1000n);
  }
  return { network, amountSats, paymentHash, timestamp, expiresAt: timestamp + expiry, description };
}

/** Staging is signet; testnet/regtest invoices are accepted too, mainnet ones are not. */
export function isTestNetworkInvoice(decoded: DecodedInvoice): boolean {
  return ["tbs", "tb", "bcrt"].includes(decoded.network);
}
