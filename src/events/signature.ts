import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/**
 * Payout-API webhook signatures: lowercase hex HMAC-SHA256 of the exact request body, keyed with the registered
 * secret, in X-Mavapay-Signature (documented) or x-webhook-signature (seen in 2025). No timestamp, no prefix.
 */
const SIGNATURE_HEADERS = ["x-mavapay-signature", "x-webhook-signature"] as const;

export function signWebhookBody(body: Buffer | string, secret: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

type SignatureCheck = "valid" | "missing" | "invalid";

export function checkWebhookSignature(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  secret: string | undefined,
): SignatureCheck {
  const received = SIGNATURE_HEADERS.map((name) => headers[name]).find(
    (value): value is string => typeof value === "string" && value.trim() !== "",
  );
  if (!received) return "missing";
  if (!secret) return "invalid";
  const expected = Buffer.from(signWebhookBody(rawBody, secret), "hex");
  const normalized = received
    .trim()
    .toLowerCase()
    .replace(/^sha256=/, "");
  if (!/^[0-9a-f]{64}$/.test(normalized)) return "invalid";
  // Constant time, so the signature cannot be found byte by byte from response times.
  return timingSafeEqual(Buffer.from(normalized, "hex"), expected) ? "valid" : "invalid";
}
