import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "#src/standins/local/redis-server.js";
import { type Stack, startStack } from "../support/stack.ts";
import { nigerianRecipient } from "./payout-support.ts";

/**
 * Webhook mode with a payout API slower than Telegram's patience: the update is recorded and answered 200 at once,
 * handled from the inbox, so Telegram never redelivers it. The emulator gives a delivery 10 s (grammY's
 * webhookCallback used to answer only after handling, which here takes 20 s+).
 */
describe("webhook mode with a slow payout API", () => {
  let stack: Stack;
  beforeAll(async () => {
    const port = await freePort();
    stack = await startStack({
      env: { BOT_MODE: "webhook", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` },
      emulator: { webhookTimeoutMs: 10_000, defaultTimeoutMs: 45_000 },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("answers Telegram at once while a quote takes 25 s; the amount is handled once", async () => {
    const user = stack.tg.user({ id: 9_701, first_name: "Kofi" });
    await nigerianRecipient(user);
    const quotesBefore = stack.sandbox.state.quotes.size;
    const response = await fetch(`${stack.sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "POST /quote", mode: "delay", delayMs: 25_000 }),
    });
    expect(response.status).toBe(200);

    const sentAt = Date.now();
    await user.send("10,000");
    // Telegram's side: the update leaves its queue when our webhook answers 2xx.
    while (stack.tg.pendingUpdates().length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const acknowledgedMs = Date.now() - sentAt;
    // A generous functional bound: far below the emulator's 10 s delivery timeout (measured: see the report).
    expect(acknowledgedMs).toBeLessThan(5_000);

    // The payout client gives up after 20 s (its header timeout): the user is told, once.
    const answer = await user.nextMessage();
    expect(answer.text ?? "").not.toBe("");
    // Let the sandbox finish the slow request, and anything else settle.
    while (stack.sandbox.state.quotes.size === quotesBefore)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await stack.tg.idle({ quietMs: 500, timeoutMs: 20_000 });
    expect(stack.tg.webhookInfo().lastError).toBeUndefined();
    expect(stack.sandbox.state.quotes.size).toBe(quotesBefore + 1);
    // One answer to the amount: nothing after it.
    expect(user.messages().filter((message) => message.message_id > answer.message_id)).toEqual([]);
    process.stderr.write(`[webhook-slow-api] webhook acknowledged in ${acknowledgedMs} ms\n`);
  }, 90_000);
});
