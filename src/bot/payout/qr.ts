import type { QRCodeSegment } from "qrcode";

/** What the invoice QR holds: "lightning:" + the upper-case BOLT11 (a denser, easier QR). */
export function invoiceQrContent(invoice: string): string {
  return `lightning:${invoice.toUpperCase()}`;
}

const SCHEME = "lightning";
/**
 * Digit runs long enough that numeric mode might pay off (qrcode switches at about 13 inside the text, 7 at its
 * end, 8 right after the colon): with one of these the optimiser decides; these limits keep a safe distance.
 */
const DIGIT_RUN_THAT_MAY_SPLIT = /[0-9]{10}|^:[0-9]{5}|[0-9]{5}$/;

/**
 * The invoice QR's content with the segments qrcode's optimiser picks for it — "lightning" as bytes, ":" and
 * the bech32 text as alphanumeric — given directly, so the QR is the same symbol without the optimiser's
 * shortest-path search over every character (about as costly as the rest of the QR). Anything else (a long
 * digit run, a character outside bech32) goes to the optimiser as a plain string.
 */
export function invoiceQrData(invoice: string): string | QRCodeSegment[] {
  const content = invoiceQrContent(invoice);
  const rest = content.slice(SCHEME.length);
  if (!/^:[0-9A-Z]+$/.test(rest) || DIGIT_RUN_THAT_MAY_SPLIT.test(rest)) return content;
  return [
    { data: Buffer.from(SCHEME, "latin1"), mode: "byte" },
    { data: rest, mode: "alphanumeric" },
  ];
}
