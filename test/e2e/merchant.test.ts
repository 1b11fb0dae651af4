import { Queue } from "bullmq";
import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUE_NAMES } from "#src/store/index.js";
import { eventually } from "../events/harness.ts";
import { expectChartPng, expectQrPng } from "../support/png.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { ask, buttonLabels, type OpsStack, startOpsStack } from "./admin-stack.ts";

/**
 * Merchants: approval by ops, /newlink end to end against the sandbox, the link paid by a simulated bank
 * transfer, and the live feed in the merchant's chat through payment received → sent → settled.
 */
const ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const idleQueue = (counts: Record<string, number>) =>
  (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0;

describe("merchants and payment links", () => {
  let ops: OpsStack;
  let shop: UserDriver;
  let ref = "";

  /** The merchant answers the step that is on screen now. */
  async function answer(text: string, match: RegExp): Promise<Message> {
    await shop.send(text);
    return shop.nextMessage({ match });
  }

  beforeAll(async () => {
    ops = await startOpsStack();
    shop = ops.stack.tg.user({ id: 8_501, first_name: "Bisi", username: "bisi_shop", language_code: "en" });
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("merchant commands explain themselves to users ops have not approved", async () => {
    for (const command of ["/newlink", "/links", "/link abcdef12"]) {
      await shop.send(command);
      const reply = await shop.nextMessage();
      expect(reply.text).toMatch(/for approved merchants/);
      expect(reply.text).toContain("8501");
    }
    expect((await ask(ops.group, ops.ada, "/merchant approve @bisi_shop")).text).toMatch(/is now a merchant/);
  });

  it("/newlink checks every step, creates the link and hands over the URL, its QR code and reference", async () => {
    await shop.send("/newlink");
    await shop.nextMessage({ match: /New payment link/ });
    const description = await answer("Order #1042 <Ankara fabric>", /Add a description/);
    await shop.press(description, "Skip ⏭");
    const amountPrompt = await shop.nextMessage({ match: /How much should the customer pay/ });
    const minimum = /Minimum: (₦[\d,.]+)/.exec(amountPrompt.text ?? "")?.[1];
    expect(minimum).toBeDefined();
    expect((await answer("5,000", /below the minimum/)).text).toContain(`minimum of ${minimum}`);
    await answer("25,000", /on-chain address/);
    expect(
      (await answer("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", /not a valid signet address/)).text,
    ).toMatch(/tb1/);
    const speed = await answer(ADDRESS, /How fast/);
    await shop.press(speed, /Fast/);
    await shop.nextMessage({ match: /web address/ });
    await answer("ftp://shop.example/thanks", /is not an http\(s\) web address/);
    const summary = await answer("https://shop.example/thanks", /Check your payment link/);
    expect(summary.text).toContain("Name: Order #1042 <Ankara fabric>");
    expect(summary.text).toContain("Customer pays: ₦25,000.00");
    expect(summary.text).toContain(ADDRESS);
    expect(summary.text).toContain("https://shop.example/thanks");

    await shop.press(summary, "✅ Create link");
    const created = await shop.nextMessage({ match: /Payment link created/ });
    ref = /Reference: (\S+)/.exec(created.text ?? "")?.[1] ?? "";
    expect(ref).toMatch(/^[0-9a-f-]{36}$/);
    const open = created.reply_markup?.inline_keyboard.flat()[0];
    expect(open && "url" in open ? open.url : "").toContain(ref);
    const qr = await shop.nextPhoto();
    expect(qr.caption).toContain(ref);
    // The QR is the link itself, drawn module for module with the spec's quiet zone.
    expectQrPng(ops.stack.tg.fileBytes(qr.photo!.at(-1)!.file_id), open && "url" in open ? open.url : "");

    const link = await ops.stack.app.api.getPaymentLinkOrders(ref);
    expect(link.amount).toBe(2_500_000);
    expect(link.beneficiaryId).toBe(ADDRESS);
    expect(link.speed).toBe("fast");
    expect(link.callbackUrl).toBe("https://shop.example/thanks");
    expect(await ops.stack.app.store.paymentLinks.get(ref)).toMatchObject({
      merchantId: 8_501,
      status: "active",
    });
  });

  it("/links and /link show the merchant's links and the link's orders", async () => {
    await shop.send("/links");
    const list = await shop.nextMessage({ match: /Your payment links/ });
    expect(list.text).toContain("🟢 Order #1042 <Ankara fabric> · ₦25,000.00 · waiting for payment");
    const chart = await shop.nextPhoto();
    expect(chart.caption).toContain("Last 14 days · links paid: 0 (₦0.00) · not paid yet: 1");
    expectChartPng(ops.stack.tg.fileBytes(chart.photo!.at(-1)!.file_id));
    await shop.press(list, /^1\. Order #1042/);
    const details = await shop.nextMessage({ match: /Orders/ });
    expect(details.text).toMatch(/\d+-\d+ · PENDING/);
    await shop.send(`/link ${ref.slice(0, 8)}`);
    expect((await shop.nextMessage()).text).toContain(`Reference: ${ref}`);
    await shop.send("/link 00000000");
    expect((await shop.nextMessage()).text).toMatch(/no payment link with that reference/);
  });

  it("a paid link reaches the merchant as it happens: received, sent (txid), settled", async () => {
    const { app } = ops.stack;
    const orders = await app.api.getPaymentLinkOrders(ref);
    const pending = orders.orders.find((order) => order.status === "PENDING");
    const details = await app.api.getPaymentLinkDetails(ref);
    const toPay = details.BANKTRANSFER?.amount;
    expect(pending).toBeDefined();
    expect(toPay).toBeGreaterThanOrEqual(2_500_000);
    await app.api.simulatePayIn({ orderId: pending!.orderId, currency: "NGN", amount: toPay! });

    const received = await shop.nextMessage({ match: /Payment received/ });
    expect(received.text).toContain("Order #1042 <Ankara fabric>");
    expect(received.text).toContain("₦25,000.00");
    const sats = /([\d,]+ sats)/.exec(received.text ?? "")?.[1];
    expect(sats).toBeDefined();
    const sent = await shop.nextMessage({ match: /Bitcoin sent/ });
    expect(sent.text).toContain(`${sats} (₦25,000.00)`);
    expect(sent.text).toMatch(/Transaction: [0-9a-f]{64}/);

    await ops.stack.mineBlocks(3);
    const settled = await shop.nextMessage({ match: /Payment link settled/ });
    expect(settled.text).toContain(`₦25,000.00 paid · ${sats} confirmed`);
    expect(await app.store.paymentLinks.get(ref)).toMatchObject({ status: "settled" });
    await shop.send("/links");
    expect((await shop.nextMessage({ match: /Your payment links/ })).text).toContain("✅ Order #1042");
    expect((await shop.nextPhoto()).caption).toContain("links paid: 1 (₦25,000.00) · not paid yet: 0");
    // One message per step, even though payment.sent arrived twice (pending, then confirmed).
    await ops.stack.tg.idle();
    expect(shop.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
  });

  it("a link paid and mined right after shows received, sent, settled once each; redelivery bursts add nothing", async () => {
    const { app, tg } = ops.stack;
    const created = await app.api.createPaymentLink({
      name: "Order #2077",
      description: "Aso oke",
      type: "One_Time",
      settlementCurrency: "BTC",
      settlementMethod: "ONCHAIN",
      speed: "fast",
      paymentCurrency: "NGN",
      paymentMethods: ["BANKTRANSFER"],
      beneficiary: { onChainAddress: ADDRESS },
      amount: 2_500_000,
    });
    const fast = created.paymentRef;
    await app.store.paymentLinks.create({
      ref: fast,
      merchantId: 8_501,
      name: "Order #2077",
      amount: 2_500_000,
      url: created.paymentLink,
      address: ADDRESS,
      speed: "fast",
    });
    const orders = await app.api.getPaymentLinkOrders(fast);
    await app.store.paymentLinks.linkOrders(
      fast,
      orders.orders.map((order) => order.orderId),
    );
    const pending = orders.orders.find((order) => order.status === "PENDING")!;
    const toPay = (await app.api.getPaymentLinkDetails(fast)).BANKTRANSFER!.amount;
    await tg.idle();
    shop.consumeAll();

    // The blocks are mined at once: payment.sent (pending), payment.sent (confirmed) and payment_link.settled
    // reach the deliveries queue together.
    await app.api.simulatePayIn({ orderId: pending.orderId, currency: "NGN", amount: toPay });
    await ops.stack.mineBlocks(3);
    await shop.nextMessage({ match: /Payment link settled/ });
    await eventually(async () => (await app.store.paymentLinks.get(fast))?.status === "settled", "settled");
    await tg.idle({ quietMs: 1_000 });
    const feed = (texts: string[]) => texts.filter((text) => text.includes("Order #2077"));
    const stages = (texts: string[]) =>
      feed(texts).map((text) => /Payment received|Bitcoin sent|Payment link settled/.exec(text)?.[0]);
    expect(stages(shop.messages().map((message) => message.text ?? ""))).toEqual([
      "Payment received",
      "Bitcoin sent",
      "Payment link settled",
    ]);

    // A burst of the same events again, three times each and newest first (redelivery after downtime): nothing new.
    const queue = new Queue(QUEUE_NAMES.deliveries, {
      connection: ops.stack.redis.duplicate(),
      prefix: "bull",
    });
    const events = ops.stack.sandbox
      .webhookLog()
      .filter((record) => record.body.includes(pending.orderId) || record.body.includes(fast))
      .map((record) => {
        const { event, data } = JSON.parse(record.body) as { event: string; data: unknown };
        return { event, data, orderId: pending.orderId, receivedAt: new Date().toISOString() };
      });
    expect(events.map((event) => event.event)).toContain("payment_link.settled");
    const burst = [...events, ...events, ...events].reverse();
    await queue.addBulk(
      burst.map((event) => ({ name: "payment-link", data: { kind: "payment-link", event } })),
    );
    await eventually(
      async () => idleQueue(await queue.getJobCounts("waiting", "active", "delayed")),
      "burst done",
    );
    await tg.idle({ quietMs: 1_000 });
    expect(feed(shop.messages().map((message) => message.text ?? ""))).toHaveLength(3);

    // The same burst for a link the feed has shown nothing of, settled first: each stage once, in order.
    const fresh = "5f0c2d7e-0000-4000-8000-00000000b0b0";
    await app.store.paymentLinks.create({
      ref: fresh,
      merchantId: 8_501,
      name: "Order #3088",
      amount: 2_500_000,
      url: "https://checkout.example/b0b0",
      address: ADDRESS,
      speed: "fast",
    });
    await app.store.paymentLinks.linkOrders(fresh, ["order-b0b0"]);
    const renamed = burst.map((event) => ({
      ...event,
      orderId: "order-b0b0",
      data:
        event.event === "payment_link.settled"
          ? { ...(event.data as Record<string, unknown>), paymentRef: fresh }
          : event.data,
    }));
    await queue.addBulk(
      renamed.map((event) => ({ name: "payment-link", data: { kind: "payment-link", event } })),
    );
    await eventually(
      async () => (await app.store.paymentLinks.get(fresh))?.status === "settled",
      "fresh settled",
    );
    await eventually(
      async () => idleQueue(await queue.getJobCounts("waiting", "active", "delayed")),
      "burst done",
    );
    await tg.idle({ quietMs: 1_000 });
    const freshStages = shop
      .messages()
      .map((message) => message.text ?? "")
      .filter((text) => text.includes("Order #3088"))
      .map((text) => /Payment received|Bitcoin sent|Payment link settled/.exec(text)?.[0]);
    expect(freshStages).toEqual(["Payment received", "Bitcoin sent", "Payment link settled"]);
    shop.consumeAll();
    await queue.close();
  });

  it("a feed message Telegram refuses becomes a dead letter; ops retry it from the alert", async () => {
    const { app, tg } = ops.stack;
    // The events pipeline hands this event over exactly so (a settled link); this one may be tried once only.
    const queue = new Queue(QUEUE_NAMES.deliveries, {
      connection: ops.stack.redis.duplicate(),
      prefix: "bull",
    });
    const fault = tg.faults.add({
      method: "sendMessage",
      chatId: 8_501,
      status: 400,
      description: "Bad Request: chat not found",
    });
    await app.store.paymentLinks.create({
      ref: "5f0c2d7e-0000-4000-8000-00000000dead",
      merchantId: 8_501,
      name: "Retry me",
      amount: 1_000_000,
      url: "https://checkout.example/5f0c",
      address: ADDRESS,
      speed: "medium",
    });
    await queue.add(
      "payment-link",
      {
        kind: "payment-link",
        event: {
          event: "payment_link.settled",
          data: {
            paymentRef: "5f0c2d7e-0000-4000-8000-00000000dead",
            transaction: { id: "t-1", amount: 6_100, currency: "BTC", status: "SUCCESS" },
          },
          receivedAt: new Date().toISOString(),
        },
      },
      { attempts: 1 },
    );
    const alert = await ops.group.nextMessage({ match: /gave up after 1 attempts/ });
    expect(fault.hits).toBe(1);
    expect(buttonLabels(alert)).toContain("🔁 Retry delivery");
    const retry = await ops.group.press(ops.ben, alert, "🔁 Retry delivery");
    expect((await retry.answer()).text).toMatch(/Queued again/);
    expect((await shop.nextMessage({ match: /Payment link settled/ })).text).toContain("Retry me");
    await queue.close();
  });
});
