import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWebhookEvent } from "#src/api/index.js";
import { dedupeDigest, dedupeIdentity } from "#src/events/dedupe.js";
import { signWebhookBody } from "#src/events/index.js";
import { type IngestJobData, webhookEventRefs } from "#src/events/ingest.js";
import { createWebhookReceiver } from "#src/events/receiver.js";
import type { HandlerResponse } from "#src/http/index.js";
import { silentLogger } from "#src/log/logger.js";
import { createMetrics } from "#src/metrics.js";
import { EventDeduper, keys, ProcessRegistry } from "#src/store/index.js";
import { chatTexts, eventually, type Harness, type PlacedOrder, settled, startHarness } from "./harness.ts";

/**
 * Copies of one signed event posted at the same moment (a sender's retry racing its first try, two senders' nodes):
 * exactly one is recorded and answered "ok", the rest are answered "duplicate", and the counts say so.
 */
let h: Harness;

beforeAll(async () => {
  // The reconciler's quick follow-up would apply the captured events on its own; keep it out of the way.
  h = await startHarness({ pipeline: { followUpMs: 600_000 } });
  await h.newPipeline().start();
});
afterAll(async () => {
  await h?.close();
});

const signed = (body: string) => ({
  "content-type": "application/json",
  "x-mavapay-signature": signWebhookBody(body, h.sandbox.webhookSecret),
});

/** Pay with the sandbox's webhooks pointed nowhere and return the exact bodies it tried to send, in order. */
async function payCapturingWebhooks(placed: PlacedOrder, expected: number): Promise<string[]> {
  const secret = h.sandbox.webhookSecret;
  await h.api.updateWebhook({ url: "http://127.0.0.1:9/nowhere", secret });
  try {
    await h.pay(placed);
    return await eventually(() => {
      const found = h.sandbox
        .webhookLog()
        .filter((record) => record.body.includes(placed.order.hash) && record.duplicateOf === null)
        .map((record) => record.body);
      return found.length >= expected ? found : undefined;
    }, "the sandbox to emit the events");
  } finally {
    await h.api.updateWebhook({ url: h.webhookUrl, secret });
  }
}

/** `copies` POSTs of one body, all sent before any is answered; the answers' bodies. */
async function postAtOnce(body: string, copies: number): Promise<unknown[]> {
  const answers = await Promise.all(
    Array.from({ length: copies }, () =>
      fetch(h.webhookUrl, { method: "POST", headers: signed(body), body }),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(Array(copies).fill(200));
  return Promise.all(answers.map((answer) => answer.json()));
}

async function counted(event: string, outcome: string): Promise<number> {
  const { values } = await h.metrics.webhookEvents.get();
  return values.find((value) => value.labels.event === event && value.labels.outcome === outcome)?.value ?? 0;
}

const statuses = (answers: unknown[]) =>
  answers.map((answer) => (answer as { status?: string }).status).sort();

describe("concurrent copies of one webhook event", () => {
  it("are recorded once: one ok, the rest duplicates, counted so, and one notification", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 4_101 });
    const [received, sent] = await payCapturingWebhooks(placed, 2);
    expect(received).toContain('"payment.received"');
    expect(sent).toContain('"payment.sent"');

    for (const [body, event, copies] of [
      [received!, "payment.received", 5],
      [sent!, "payment.sent", 20],
    ] as const) {
      const before = { ok: await counted(event, "accepted"), repeat: await counted(event, "duplicate") };
      const answers = await postAtOnce(body, copies);
      expect(statuses(answers), event).toEqual([...Array(copies - 1).fill("duplicate"), "ok"]);
      expect(await counted(event, "accepted")).toBe(before.ok + 1);
      expect(await counted(event, "duplicate")).toBe(before.repeat + copies - 1);
      // Later copies too are repeats.
      expect(statuses(await postAtOnce(body, 2))).toEqual(["duplicate", "duplicate"]);
    }

    await eventually(
      async () => (await h.store.orders.get(placed.order.orderId))?.stage === "completed",
      "the order to complete",
    );
    await settled(h, [placed.order.orderId]);
    await h.tg.idle({ quietMs: 300 });
    // The card (edited in place) and one notification per event.
    const texts = chatTexts(placed.user);
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(/Completed/);
    expect(texts[1]).toMatch(/Payment received/);
    expect(texts[2]).toMatch(/delivered to/);
  });
});

describe("the claim on an event", () => {
  const logger = silentLogger();
  let serial = 0;

  /** A receiver on the harness's Redis whose recording fails `failures` times first (a Redis hiccup). */
  function receiverFailing(
    failures: number,
    options: { claimWaitMs?: number; processes?: ProcessRegistry } = {},
  ) {
    const recorded: IngestJobData[] = [];
    const metrics = createMetrics();
    let left = failures;
    const receive = createWebhookReceiver({
      secret: h.sandbox.webhookSecret,
      allowUnsigned: false,
      parseEvent: (json) => {
        const parsed = parseWebhookEvent(json);
        return parsed.ok ? { event: parsed.event.event, refs: webhookEventRefs(parsed.event) } : undefined;
      },
      deduper: new EventDeduper(h.redis),
      ...options,
      accept: async (event) => {
        // Yield first, so concurrent deliveries find the claim taken while this one is recording.
        await new Promise((resolve) => setTimeout(resolve, 30));
        if (left-- > 0) throw new Error("recording failed");
        recorded.push(event);
        return false;
      },
      logger,
      metrics,
    });
    const body = Buffer.from(
      JSON.stringify({
        event: "payment.received",
        data: {
          id: `tx-claim-${++serial}`,
          type: "DEPOSIT",
          status: "SUCCESS",
          amount: 100,
          currency: "NGN",
        },
      }),
    );
    const deliver = () =>
      receive({
        rawBody: body,
        headers: { "x-mavapay-signature": signWebhookBody(body, h.sandbox.webhookSecret) },
      });
    return { deliver, recorded, metrics, body };
  }

  const shown = (answer: HandlerResponse) => `${answer.status} ${(answer.body as { status: string }).status}`;

  it("is given back when recording fails, so the sender's retry is recorded", async () => {
    const { deliver, recorded } = receiverFailing(1);
    expect(shown(await deliver())).toBe("503 error");
    expect(recorded).toHaveLength(0);
    expect(shown(await deliver())).toBe("200 ok");
    expect(recorded).toHaveLength(1);
    expect(shown(await deliver())).toBe("200 duplicate");
    expect(recorded).toHaveLength(1);
  });

  it("passes to a waiting copy when its holder fails: the event is still recorded once", async () => {
    const { deliver, recorded, metrics } = receiverFailing(1);
    const answers = await Promise.all(Array.from({ length: 5 }, deliver));
    expect(answers.map(shown).sort()).toEqual([
      "200 duplicate",
      "200 duplicate",
      "200 duplicate",
      "200 ok",
      "503 error",
    ]);
    expect(recorded).toHaveLength(1);
    const { values } = await metrics.webhookEvents.get();
    const outcomes = Object.fromEntries(values.map((value) => [value.labels.outcome, value.value]));
    expect(outcomes).toEqual({ accepted: 1, duplicate: 3, error: 1 });
  });

  /** The identity digest of the event a receiver from `receiverFailing` delivers. */
  function digestOf(body: Buffer): string {
    const { event, data } = JSON.parse(body.toString()) as { event: string; data: unknown };
    return dedupeDigest(dedupeIdentity(event, data)!);
  }

  it("held by a process that died is taken over by the next delivery once that process's heartbeat lapses", async () => {
    const here = new ProcessRegistry(h.redis);
    const there = new ProcessRegistry(h.redis);
    await here.start();
    await there.start();
    try {
      const { deliver, recorded, body } = receiverFailing(0, { claimWaitMs: 100, processes: here });
      // Another process claimed the event and is still at it: this delivery is answered 503 (the sender retries),
      // not "duplicate": nothing is recorded yet.
      const held = await new EventDeduper(h.redis).claim(digestOf(body), undefined, there);
      expect(held.state).toBe("claimed");
      expect(shown(await deliver())).toBe("503 error");
      expect(recorded).toHaveLength(0);
      // It dies (its heartbeat is gone: lapsed, or deleted as here): the retry takes the claim over at once.
      await there.stop();
      expect(shown(await deliver())).toBe("200 ok");
      expect(recorded).toHaveLength(1);
      expect(await h.redis.get(keys.dedupe(digestOf(body)))).toBe("1");
      expect(shown(await deliver())).toBe("200 duplicate");
    } finally {
      await here.stop();
    }
  });

  it("held by a claimant with no heartbeat keeps the event back (503) until the claim expires", async () => {
    const { deliver, recorded, body } = receiverFailing(0, { claimWaitMs: 100 });
    const key = keys.dedupe(digestOf(body));
    await h.redis.set(key, "anonymous:claim-of-a-dead-process", "PX", 1_000);
    expect(shown(await deliver())).toBe("503 error");
    expect(recorded).toHaveLength(0);
    await eventually(async () => (await h.redis.exists(key)) === 0, "the claim to expire", 5_000);
    expect(shown(await deliver())).toBe("200 ok");
    expect(recorded).toHaveLength(1);
  });
});
