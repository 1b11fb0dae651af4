import type { BotDeps } from "#src/bot/context.js";
import { type DecodedInvoice, decodeLightningInvoice, invoiceFitsNetwork } from "#src/bot/rules/treasury.js";
import { maskInvoice } from "#src/orders/index.js";
import type { RefundBeneficiary } from "#src/store/index.js";
import { invoiceForAddress, type LightningAddress, LnurlError, parseLightningAddress } from "./lnurl.ts";

/**
 * Where the user wants their held sats: a BOLT11 invoice for exactly the refund, or a Lightning address resolved
 * through LNURL-pay. Pure checks plus the one lookup; the result is plain data (it is kept in the conversation log).
 */
/** The invoice must stay payable long enough for the payment (and an approval) to happen. */
const MIN_INVOICE_LIFETIME_MS = 2 * 60_000;
/** Longer input is neither an invoice nor an address; it is not even looked at. */
export const MAX_DESTINATION_LENGTH = 2_048;

type DestinationProblem =
  | "not_recognised"
  | "wrong_network"
  | "amountless"
  | "wrong_amount"
  | "expired"
  | "address_failed"
  | "address_amount";

export type Destination =
  | {
      ok: true;
      destinationKind: "invoice" | "address";
      /** Shortened, for cards. */
      destination: string;
      invoice: string;
      paymentHash?: string;
      expiresAt: number;
    }
  | { ok: false; problem: DestinationProblem };

/** A Nigerian bank account, found by bank search and name enquiry and confirmed by the user (a naira refund). */
export interface BankDestination {
  ok: true;
  destinationKind: "bank";
  /** "GTBank ·••6789", for the ops alert and logs. */
  destination: string;
  beneficiary: RefundBeneficiary;
}

/** Where a refund goes: a Lightning invoice (pasted or resolved) or a bank account. */
export type RefundDestination = Extract<Destination, { ok: true }> | BankDestination;

/** Checks a pasted or resolved invoice against the refund: network, exact amount (to the millisat), lifetime. */
export function checkRefundInvoice(
  decoded: DecodedInvoice,
  expected: { amountSats: number; network: string; now: number },
): DestinationProblem | undefined {
  if (!invoiceFitsNetwork(decoded, expected.network)) return "wrong_network";
  if (decoded.amountMsat === null) return "amountless";
  if (decoded.amountMsat !== BigInt(expected.amountSats) * 1000n) return "wrong_amount";
  if (decoded.expiresAt - expected.now < MIN_INVOICE_LIFETIME_MS) return "expired";
  return undefined;
}

/** What the user typed → a payable destination or the reason it is not one. Plain data (conversation logs). */
export async function resolveDestination(
  deps: Pick<BotDeps, "config" | "logger" | "outbound">,
  text: string,
  expected: { amountSats: number; now: number },
  resolve: (address: LightningAddress, msat: bigint) => ReturnType<typeof invoiceForAddress> = (
    address,
    msat,
  ) => invoiceForAddress(address, msat, deps.outbound ? { network: deps.outbound } : {}),
): Promise<Destination> {
  if (text.length > MAX_DESTINATION_LENGTH) return { ok: false, problem: "not_recognised" };
  const check = { ...expected, network: deps.config.bitcoinNetwork };
  const decoded = decodeLightningInvoice(text);
  if (decoded) {
    const problem = checkRefundInvoice(decoded, check);
    if (problem) return { ok: false, problem };
    return accepted("invoice", maskInvoice(decoded.invoice), decoded);
  }
  const address = parseLightningAddress(text);
  if (!address) return { ok: false, problem: "not_recognised" };
  try {
    const resolved = await resolve(address, BigInt(expected.amountSats) * 1000n);
    const problem = checkRefundInvoice(resolved.decoded, check);
    // The service chose the invoice: anything wrong with it is the address's fault, not the user's typing.
    if (problem) return { ok: false, problem: problem === "wrong_amount" ? "address_failed" : problem };
    return accepted("address", `${address.user}@${address.domain}`, resolved.decoded);
  } catch (error) {
    if (!(error instanceof LnurlError)) throw error;
    deps.logger.info({ failure: error.failure, domain: address.domain }, "lightning address not usable");
    return {
      ok: false,
      problem: error.failure === "amount_out_of_range" ? "address_amount" : "address_failed",
    };
  }
}

function accepted(kind: "invoice" | "address", destination: string, decoded: DecodedInvoice): Destination {
  return {
    ok: true,
    destinationKind: kind,
    destination,
    invoice: decoded.invoice,
    expiresAt: decoded.expiresAt,
    ...(decoded.paymentHash ? { paymentHash: decoded.paymentHash } : {}),
  };
}
