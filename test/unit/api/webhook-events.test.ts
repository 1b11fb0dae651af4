import { describe, expect, it } from "vitest";
import {
  eventCustomerReference,
  eventDedupeKey,
  eventHash,
  eventOrderId,
  eventTransaction,
  parseWebhookEvent,
  type WebhookEvent,
} from "#src/api/index.js";
import { notesFixture } from "./fixtures/load.ts";
import * as spec from "./fixtures/spec-shapes.ts";

function parsed(input: unknown): WebhookEvent {
  const result = parseWebhookEvent(input);
  if (!result.ok) throw new Error(result.error);
  return result.event;
}

describe("parseWebhookEvent", () => {
  it("parses the real ping", () => {
    const event = parsed(notesFixture("event-ping"));
    expect(event.type).toBe("ping");
    if (event.type === "ping") expect(event.data?.message).toBe("This is a test webhook event");
  });

  it("parses the real NGN payment.received with transactionMetadata, from the raw body too", () => {
    const raw = JSON.stringify(notesFixture("event-ngn-payment-received"));
    for (const input of [raw, new TextEncoder().encode(raw), JSON.parse(raw)]) {
      const event = parsed(input);
      expect(event.type).toBe("payment.received");
      expect(eventOrderId(event)).toBe("82958-2591");
      expect(eventHash(event)).toBe("001f7fb8...");
      expect(eventCustomerReference(event)).toBe("order-1234567890");
      expect(eventTransaction(event)).toMatchObject({ amount: 300000, fees: 2500, type: "DEPOSIT" });
    }
  });

  it("parses the on-chain payment.sent with btcUsdMetadata, onchainTxid and the old externalRef", () => {
    const event = parsed(spec.eventOnChainSent);
    expect(event.type).toBe("payment.sent");
    expect(eventOrderId(event)).toBe("43477-4306");
    expect(eventHash(event)).toBe("68b594a09a16ac0012ae3414");
    expect(eventCustomerReference(event)).toBe("tg-7-onchain");
    expect(eventTransaction(event)?.btcUsdMetadata).toMatchObject({
      onchainNetworkSpeed: "medium",
      onChainAddress: "tb1qexampleaddress",
      lnInvoice: undefined,
    });
  });

  it("parses the KES spec shapes and digs the hash and reference out of metadata", () => {
    const received = parsed(spec.eventKesSpecReceived);
    expect(eventHash(received)).toBe("a".repeat(64));
    expect(eventOrderId(received)).toBe("63493-3037");
    const sent = parsed(spec.eventKesSpecSent);
    expect(eventTransaction(sent)?.amount).toBe(1460784);
    // An M-Pesa receipt is not an order id.
    expect(eventOrderId(sent)).toBeUndefined();
    expect(eventTransaction(sent)?.metadata?.reference).toBe("RKT4XYZ123");
  });

  it("parses the real KES Transaction with kesTransactionMetadata", () => {
    const metadata = notesFixture<{ kesTransactionMetadata: unknown }>("kes-transaction-metadata");
    const event = parsed({
      event: "payment.sent",
      data: { ...spec.eventKesRealSent.data, kesTransactionMetadata: metadata.kesTransactionMetadata },
    });
    expect(eventTransaction(event)?.kesTransactionMetadata?.identifiers).toMatchObject({
      phoneNumber: "+254796980711",
      network: "mpesa",
    });
    expect(eventOrderId(parsed(spec.eventKesRealSent))).toBe("63493-3037");
  });

  it("parses ZAR and GHS metadata keys", () => {
    const zar = parsed(spec.eventZarPending);
    expect(eventOrderId(zar)).toBe("70001-0001");
    expect(eventCustomerReference(zar)).toBe("tg-zar-1");
    expect(eventTransaction(zar)?.status).toBe("PENDING");
    const ghs = parsed(spec.eventGhsSent);
    expect(eventOrderId(ghs)).toBe("80001-0001");
    expect(eventTransaction(ghs)?.ghsTransactionMetadata?.identifierType).toBe("MTN");
  });

  it("parses payment_link.settled and reads its transaction", () => {
    const event = parsed(spec.eventPaymentLinkSettled);
    expect(event.type).toBe("payment_link.settled");
    if (event.type === "payment_link.settled")
      expect(event.data.paymentRef).toBe(spec.eventPaymentLinkSettled.data.paymentRef);
    expect(eventOrderId(event)).toBe("17454-1571");
    expect(eventCustomerReference(event)).toBe("link-ref");
    expect(eventHash(event)).toBe("68b594a09a16ac0012ae3414");
  });

  it("turns unknown event names into an unknown variant", () => {
    const event = parsed({ event: "payout.reversed", data: { anything: 1 } });
    expect(event).toMatchObject({ type: "unknown", event: "payout.reversed", data: { anything: 1 } });
    expect(eventOrderId(event)).toBeUndefined();
    expect(eventHash(event)).toBeUndefined();
    expect(eventDedupeKey(event)).toBeUndefined();
  });

  it("keys de-duplication on the transaction id and status", () => {
    const pending = parsed(spec.eventZarPending);
    const success = parsed({
      ...spec.eventZarPending,
      data: { ...spec.eventZarPending.data, status: "SUCCESS" },
    });
    expect(eventDedupeKey(pending)).toBe("payment.sent:zar-1:PENDING");
    expect(eventDedupeKey(success)).not.toBe(eventDedupeKey(pending));
  });

  it("reports, without throwing, bodies that are not events", () => {
    expect(parseWebhookEvent("{not json")).toEqual({ ok: false, error: "body is not JSON" });
    expect(parseWebhookEvent({ data: {} }).ok).toBe(false);
    expect(parseWebhookEvent(null).ok).toBe(false);
    const broken = parseWebhookEvent({ event: "payment.received", data: { id: "x", currency: "NGN" } });
    expect(broken.ok).toBe(false);
    if (!broken.ok) {
      expect(broken.error).toContain("payment.received");
      expect(broken.error).toContain("data.amount");
    }
    // Checked against its own event's schema: the issues are payment.sent's, the amount reported where it is.
    const sent = parseWebhookEvent({
      event: "payment.sent",
      data: { id: "x", status: "SUCCESS", amount: true },
    });
    expect(sent).toEqual({
      ok: false,
      error:
        "payment.sent: data.amount: Invalid input; data.currency: Invalid input: expected string, received undefined",
    });
  });
});
