import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhookBody } from "#src/events/index.js";
import { PAYOUT_WEBHOOK_PATH } from "#src/http/server.js";
import { type Stack, startStack } from "../support/stack.ts";

/**
 * Rotating the payout webhook secret without refusing a delivery: with PAYOUT_WEBHOOK_SECRET_PREVIOUS set, a
 * delivery signed with either secret gets in (one signed before the switch may arrive after it); any other
 * signature is still refused.
 */
const PREVIOUS = "previous-webhook-secret-0123456789";

describe("webhook secret rotation", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { PAYOUT_WEBHOOK_SECRET_PREVIOUS: PREVIOUS } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const deliver = async (id: string, secret: string) => {
    const body = JSON.stringify({
      event: "payment.received",
      data: { id, type: "DEPOSIT", status: "SUCCESS", hash: `hash-${id}`, amount: 100, currency: "NGN" },
    });
    const response = await fetch(`${stack.app.httpUrl}${PAYOUT_WEBHOOK_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mavapay-signature": signWebhookBody(body, secret) },
      body,
    });
    return { status: response.status, body: await response.json() };
  };
  const counted = async (outcome: string) => {
    const metric = await stack.app.metrics.webhookEvents.get();
    return metric.values
      .filter((value) => value.labels.event === "payment.received" && value.labels.outcome === outcome)
      .reduce((sum, value) => sum + value.value, 0);
  };

  it("accepts deliveries signed with the registered secret and with the previous one, and nothing else", async () => {
    expect(await deliver("rot-current", stack.sandbox.webhookSecret)).toEqual({
      status: 200,
      body: { status: "ok" },
    });
    expect(await deliver("rot-previous", PREVIOUS)).toEqual({ status: 200, body: { status: "ok" } });
    expect(await counted("accepted")).toBe(2);

    expect(await deliver("rot-forged", "neither-of-the-two-secrets")).toEqual({
      status: 401,
      body: { status: "error", message: "invalid signature" },
    });
    expect(await counted("forged")).toBe(1);
  });
});
