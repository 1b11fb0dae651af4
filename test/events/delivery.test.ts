import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhookBody } from "#src/events/index.js";
import { ProcessRegistry } from "#src/store/index.js";
import { chatTexts, eventually, type Harness, type PlacedOrder, settled, startHarness } from "./harness.ts";

let h: Harness;

beforeAll(async () => {
  // The reconciler's quick follow-up would repair the events these tests withhold on purpose; keep it out of the way.
  h = await startHarness({ pipeline: { followUpMs: 600_000 } });
  await h.newPipeline().start();
});
afterAll(async () => {
  await h?.close();
});

async function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(h.webhookUrl, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}
const signed = (body: string) => ({ "x-mavapay-signature": signWebhookBody(body, h.sandbox.webhookSecret) });

/** Pay with the sandbox's webhooks pointed nowhere and return the exact bodies it tried to send, in order. */
async function payCapturingWebhooks(placed: PlacedOrder, expected: number): Promise<string[]> {
  const secret = h.sandbox.webhookSecret;
  await h.api.updateWebhook({ url: "http://127.0.0.1:9/nowhere", secret });
  try {
    await h.pay(placed);
    const bodies = await eventually(() => {
      const found = h.sandbox
        .webhookLog()
        .filter((record) => record.body.includes(placed.order.hash) && record.duplicateOf === null)
        .map((record) => record.body);
      return found.length >= expected ? found : undefined;
    }, "the sandbox to emit the events");
    return bodies;
  } finally {
    await h.api.updateWebhook({ url: h.webhookUrl, secret });
  }
}

const stageOf = async (orderId: string) => (await h.store.orders.get(orderId))?.stage;

describe("exactly once, in order", () => {
  it("duplicate deliveries (sandbox fault and replays) notify once", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3001 });
    await fetch(`${h.sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mode: "duplicate-webhooks", times: 2 }),
    });
    await h.pay(placed);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    const bodies = h.sandbox
      .webhookLog()
      .filter((record) => record.body.includes(placed.order.hash))
      .map((record) => record.body);
    expect(bodies.length).toBe(4);
    for (const body of bodies) {
      const answer = await post(body, signed(body));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ status: "duplicate" });
    }
    await settled(h, [placed.order.orderId]);
    const texts = chatTexts(placed.user);
    expect(texts).toHaveLength(3);
    expect(texts[1]).toMatch(/Payment received/);
    expect(texts[2]).toMatch(/delivered to/);
  });

  it("an event that comes while the confirm flow is still sending its status card waits for that card: one card", async () => {
    // Confirmed, its messages not yet recorded: the flow is between sending the status card and recording it.
    const placed = await h.placeOrder({ corridor: "NG", userId: 3010, card: false });
    await h.pay(placed);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(chatTexts(placed.user)).toEqual([]);

    // The flow's card is recorded (what the payout flow's sendInvoice does): the waiting delivery edits that card.
    const card = await h.telegram.sendMessage(placed.order.chatId, "the flow's status card");
    await h.store.orders.annotate(placed.order.orderId, {
      statusMessageId: card.message_id,
      deliveredAt: new Date().toISOString(),
    });
    await settled(h, [placed.order.orderId]);
    const texts = chatTexts(placed.user);
    expect(texts).toHaveLength(3);
    expect(placed.user.messages()[0]?.message_id).toBe(card.message_id);
    expect(texts[0]).toMatch(/Completed/);
    expect(texts[1]).toMatch(/Payment received/);
    expect(texts[2]).toMatch(/delivered to/);
  });

  it("an event's delivery is claimed by the script that writes it: four round trips from webhook to notification", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3020 });
    const [received] = await payCapturingWebhooks(placed, 2);
    const { orderId } = placed.order;
    const orderKeys = [`order:${orderId}`, `events:lock:${orderId}`, `events:outbox:${orderId}`];
    // The commands the pipeline's client sends that name this order's keys (a script: its keys; else its arguments;
    // an EVAL is the first run's fallback of the EVALSHA before it, on a server that did not have the script yet).
    const sent: string[] = [];
    const watcher = h.redis.duplicate();
    const send = h.redis.sendCommand.bind(h.redis);
    h.redis.sendCommand = ((command: { name: string; args: unknown[] }, stream?: unknown) => {
      const named = command.args.map(String);
      const keys = command.name === "evalsha" || command.name === "eval" ? named.slice(2) : named;
      if (
        command.name !== "eval" &&
        keys.some((key) => orderKeys.some((orderKey) => key.startsWith(orderKey)))
      )
        sent.push(command.name === "evalsha" ? `script:${keys[0]}` : command.name);
      return send(command as never, stream as never);
    }) as typeof h.redis.sendCommand;
    try {
      expect((await post(received!, signed(received!))).status).toBe(200);
      await eventually(
        () => chatTexts(placed.user).some((text) => /Payment received/.test(text)),
        "notified",
      );
      await eventually(async () => (await watcher.exists(`events:lock:${orderId}`)) === 0, "the lock let go");
    } finally {
      h.redis.sendCommand = send;
      watcher.disconnect();
    }
    // The event's dedupe claim with its read of the order; the transition with its record (which turns the claim
    // into the event's mark) and the delivery's claim; the mark of the notification about to be sent; the cursor's
    // move with the unlock. No delivery claim script of its own.
    expect(sent).toEqual([
      expect.stringMatching(/^script:events:seen:[0-9a-f]{40}$/),
      `script:order:${orderId}`,
      "set",
      `script:events:outbox:${orderId}:cursor`,
    ]);
    await settled(h, [orderId]);
  });

  it("payment.sent before payment.received: the card never moves back", async () => {
    const placed = await h.placeOrder({ corridor: "GH", userId: 3002 });
    const [received, sent] = await payCapturingWebhooks(placed, 2);
    expect(received).toContain('"payment.received"');
    expect(sent).toContain('"payment.sent"');
    expect((await post(sent!, signed(sent!))).status).toBe(200);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await settled(h, [placed.order.orderId]);
    expect((await post(received!, signed(received!))).status).toBe(200);
    await settled(h, [placed.order.orderId]);

    expect(await stageOf(placed.order.orderId)).toBe("completed");
    const [card, ...notifications] = chatTexts(placed.user);
    expect(card).toMatch(/Completed/);
    // Every stage that happened is shown once, in order, even when its own event came late (and is then a no-op).
    expect(notifications).toHaveLength(2);
    expect(notifications[0]).toMatch(/Payment received/);
    expect(notifications[1]).toMatch(/delivered to/);
  });

  it("forged, unsigned, tampered and malformed webhooks are refused and change nothing", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3003 });
    const [received] = await payCapturingWebhooks(placed, 2);
    const body = received!;
    const tampered = body.replace(/"amount":\d+/, '"amount":1');
    const cases: Array<[string, Record<string, string>, number]> = [
      [body, {}, 401],
      [body, { "x-mavapay-signature": "0".repeat(64) }, 401],
      [body, { "x-mavapay-signature": signWebhookBody(body, "not-the-secret") }, 401],
      [tampered, signed(body), 401],
      ["{not json", signed("{not json"), 400],
      [
        '{"event":"payment.received","data":{"status":7}}',
        signed('{"event":"payment.received","data":{"status":7}}'),
        400,
      ],
      ['{"event":"payment.received"}', signed('{"event":"payment.received"}'), 400],
    ];
    for (const [payload, headers, status] of cases) {
      expect((await post(payload, headers)).status, payload.slice(0, 40)).toBe(status);
    }
    // The legacy header name is accepted; a ping is answered without further ado.
    const ping = JSON.stringify({ event: "ping", data: { message: "This is a test webhook event" } });
    expect((await post(ping)).status).toBe(200);
    const tooBig = JSON.stringify({ event: "payment.received", data: { pad: "x".repeat(300 * 1024) } });
    expect((await post(tooBig, signed(tooBig))).status).toBe(413);

    await h.tg.idle({ quietMs: 300 });
    expect(await stageOf(placed.order.orderId)).toBe("awaiting_payment");
    expect(chatTexts(placed.user)).toHaveLength(1);

    const legacy = { "x-webhook-signature": signWebhookBody(body, h.sandbox.webhookSecret) };
    expect((await post(body, legacy)).status).toBe(200);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "payment_received", "accepted");
    const { values } = await h.metrics.webhookEvents.get();
    const total = (outcome: string) =>
      values.filter((value) => value.labels.outcome === outcome).reduce((sum, value) => sum + value.value, 0);
    expect(total("forged")).toBe(4);
    expect(total("malformed")).toBe(3);
  });

  it("a validly signed body nested 30,000 levels deep is refused with 400, counted malformed, never queued", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3010 });
    const [received] = await payCapturingWebhooks(placed, 1);
    const malformed = async () =>
      (await h.metrics.webhookEvents.get()).values
        .filter((value) => value.labels.outcome === "malformed")
        .reduce((sum, value) => sum + value.value, 0);
    const before = await malformed();
    const levels = 30_000;
    const deep = `${"[".repeat(levels)}${"]".repeat(levels)}`;
    // A real event with a deep extra field (the shape check alone would let it through), and a bare deep array.
    const bodies = [received!.replace(/}$/, `,"extra":${deep}}`), deep];
    for (const body of bodies) {
      const answer = await post(body, signed(body));
      expect(answer.status).toBe(400);
    }
    // Brackets inside strings are not nesting: a real event with a long bracket string still goes through.
    const harmless = received!.replace(/}$/, `,"note":"${"[".repeat(levels)}"}`);
    expect((await post(harmless, signed(harmless))).status).toBe(200);
    expect((await malformed()) - before).toBe(2);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "payment_received", "accepted");
  });

  it("an order lock left by a dead process is taken over at once; a live owner's lock is waited for", async () => {
    const dead = await h.placeOrder({ corridor: "NG", userId: 3011 });
    const busy = await h.placeOrder({ corridor: "NG", userId: 3012 });
    // A crashed process's lock (30 s TTL left, no heartbeat), and one held by a live process (its heartbeat kept).
    const alive = new ProcessRegistry(h.redis);
    await alive.start();
    try {
      await h.redis.set(`events:lock:${dead.order.orderId}`, "0d1e-dead-process:token", "PX", 30_000);
      await h.redis.set(`events:lock:${busy.order.orderId}`, `${alive.id}:token`, "PX", 30_000);
      const started = Date.now();
      await Promise.all([h.pay(dead), h.pay(busy)]);
      await eventually(
        () => chatTexts(dead.user).some((text) => /delivered to/.test(text)),
        "dead lock taken",
      );
      const tookMs = Date.now() - started;
      // Generous bound only: without the takeover it would be the lock's 30 s.
      expect(tookMs).toBeLessThan(15_000);
      await eventually(
        async () => (await stageOf(busy.order.orderId)) === "completed",
        "busy order completed",
      );
      expect(chatTexts(busy.user)).toHaveLength(1);
    } finally {
      await alive.stop();
    }
    // Once the live owner is gone (its heartbeat deleted as on a clean stop, the lock left behind), delivery goes on.
    await settled(h, [dead.order.orderId, busy.order.orderId]);
    expect(chatTexts(busy.user)).toHaveLength(3);
    expect(chatTexts(dead.user)).toHaveLength(3);
  });

  it("events recorded by a process that died before delivering them are delivered once by the next process", async () => {
    const first = await h.placeOrder({ corridor: "ZA", userId: 3004 });
    const second = await h.placeOrder({ corridor: "KE", userId: 3005 });
    const [firstReceived, firstSent] = await payCapturingWebhooks(first, 2);
    const secondBodies = await payCapturingWebhooks(second, 2);

    // The running pipeline takes the first event, then stops (a deploy).
    expect((await post(firstReceived!, signed(firstReceived!))).status).toBe(200);
    await eventually(
      async () => (await stageOf(first.order.orderId)) === "payment_received",
      "first event applied",
    );
    await settled(h, [first.order.orderId]);
    await h.pipeline.stop();

    // A process that records what it receives but dies before any delivery runs (no delivery slot ever frees up).
    const dying = h.newPipeline({ deliveryConcurrency: 0 });
    for (const body of [firstSent!, ...secondBodies]) {
      expect((await post(body, signed(body))).status).toBe(200);
    }
    expect(await stageOf(first.order.orderId)).toBe("completed");
    expect(await stageOf(second.order.orderId)).toBe("completed");
    expect((await dying.stats())["payout-events"]?.waiting ?? 0).toBe(0);
    expect(chatTexts(first.user)).toHaveLength(2);
    expect(chatTexts(second.user)).toHaveLength(1);
    await dying.stop();

    // The next process's sweep finds both overdue and delivers each once, in order.
    const next = h.newPipeline();
    await next.start();
    await settled(h, [first.order.orderId, second.order.orderId]);
    expect(chatTexts(first.user).slice(1)).toEqual([
      expect.stringMatching(/Payment received/),
      expect.stringMatching(/delivered to/),
    ]);
    expect(chatTexts(second.user).slice(1)).toEqual([
      expect.stringMatching(/Payment received/),
      expect.stringMatching(/delivered to/),
    ]);
  });

  it("Telegram 429s delay messages but never drop or repeat them", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3006 });
    const chatId = placed.user.chatId;
    const sendFault = h.tg.faults.add({
      method: "sendMessage",
      chatId,
      status: 429,
      retryAfter: 1,
      times: 2,
    });
    const editFault = h.tg.faults.add({
      method: "editMessageText",
      chatId,
      status: 429,
      retryAfter: 1,
      times: 1,
    });
    await h.pay(placed);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await settled(h, [placed.order.orderId]);
    expect(sendFault.hits).toBe(2);
    expect(editFault.hits).toBe(1);
    const texts = chatTexts(placed.user);
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(/Completed/);
    expect(texts[1]).toMatch(/Payment received/);
    expect(texts[2]).toMatch(/delivered to/);
  });

  it("a user who blocked the bot is marked unreachable once, without retries", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3007 });
    placed.user.block();
    await h.pay(placed);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await settled(h, [placed.order.orderId]);
    expect((await h.store.users.get(3007))?.unreachable).toBe(true);
    const refused = h.tg
      .calls()
      .filter((call) => Number(call.params.chat_id) === 3007 && call.status === 403);
    expect(refused).toHaveLength(1);
    await eventually(() => h.alerts.some((a) => a.type === "user_unreachable" && a.userId === 3007), "alert");
    expect(h.alerts.filter((a) => a.type === "user_unreachable" && a.userId === 3007)).toHaveLength(1);
  });

  it("a delivery that keeps failing becomes a dead letter ops can list and replay", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3008 });
    const chatId = placed.user.chatId;
    const faults = ["editMessageText", "sendMessage"].map((method) =>
      h.tg.faults.add({
        method,
        chatId,
        status: 400,
        description: "Bad Request: something unexpected",
        times: 1_000,
      }),
    );
    await h.pay(placed);
    const letters = await eventually(async () => {
      const list = await h.pipeline.deadLetters.list();
      const mine = list.filter((letter) => letter.summary.orderId === placed.order.orderId);
      return mine.length > 0 ? mine : undefined;
    }, "a dead letter");
    expect(letters[0]).toMatchObject({ queue: "payout-deliveries", attempts: 3 });
    expect(letters[0]?.id).toMatch(/^d:/);
    expect(letters[0]!.id.length).toBeLessThanOrEqual(40);
    expect(h.alerts.some((a) => a.type === "dead_letter" && a.jobId === letters[0]?.jobId)).toBe(true);
    expect(chatTexts(placed.user)).toHaveLength(1);

    for (const fault of faults) fault.remove();
    for (const letter of letters) expect(await h.pipeline.deadLetters.replay(letter.id)).toBe(true);
    expect(await h.pipeline.deadLetters.replay("d:no-such-job")).toBe(false);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await settled(h, [placed.order.orderId]);
    const texts = chatTexts(placed.user);
    expect(texts[0]).toMatch(/Completed/);
    expect(texts.slice(1)).toEqual([
      expect.stringMatching(/Payment received/),
      expect.stringMatching(/delivered to/),
    ]);
    const remaining = await h.pipeline.deadLetters.list();
    expect(remaining.filter((letter) => letter.summary.orderId === placed.order.orderId)).toEqual([]);
  });

  it("a notification Telegram refused is sent by the retry (only a crash mid-send leaves it unsent)", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3009 });
    const refusal = h.tg.faults.add({
      method: "sendMessage",
      chatId: placed.user.chatId,
      status: 400,
      description: "Bad Request: something unexpected",
      times: 1,
    });
    await h.pay(placed);
    await eventually(async () => (await stageOf(placed.order.orderId)) === "completed", "completed");
    await settled(h, [placed.order.orderId]);
    expect(refusal.hits).toBe(1);
    expect(chatTexts(placed.user).slice(1)).toEqual([
      expect.stringMatching(/Payment received/),
      expect.stringMatching(/delivered to/),
    ]);
  });
});
