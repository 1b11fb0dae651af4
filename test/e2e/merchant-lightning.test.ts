import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../sandbox/harness.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { ask, buttonLabels, type OpsStack, startOpsStack } from "./admin-stack.ts";

/**
 * A merchant's link that customers may pay over Lightning: /newlink offers it (the sandbox's links accept
 * LIGHTNING, so config.paymentLinkLightning is on), the hosted checkout's key-less sequence shows the invoice —
 * details → refresh → status polling until SETTLED — the invoice is paid through the simulation route, and the
 * merchant's feed reports the payment like any other, marked as Lightning.
 */
const ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

describe("merchant Lightning payment links", () => {
  let ops: OpsStack;
  let shop: UserDriver;

  beforeAll(async () => {
    ops = await startOpsStack();
    shop = ops.stack.tg.user({ id: 8_601, first_name: "Chidi", username: "chidi_shop", language_code: "en" });
    // Ops approve someone who has talked to the bot.
    await shop.send("/links");
    await shop.nextMessage({ match: /for approved merchants/ });
    expect((await ask(ops.group, ops.ada, "/merchant approve @chidi_shop")).text).toMatch(
      /is now a merchant/,
    );
  });
  afterAll(async () => {
    await ops?.stop();
  });

  async function answer(text: string, match: RegExp): Promise<Message> {
    await shop.send(text);
    return shop.nextMessage({ match });
  }

  /** The hosted checkout's calls: no X-API-KEY (api-behaviour-notes §9, §11). */
  async function checkout(path: string): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${ops.stack.sandbox.baseUrl}${path}`);
    return { status: response.status, body: (await response.json()) as Json };
  }

  it("creates a link that takes Lightning, is paid through the checkout, and the feed shows it", async () => {
    await shop.send("/newlink");
    await shop.nextMessage({ match: /New payment link/ });
    const description = await answer("Jollof for 4", /Add a description/);
    await shop.press(description, "Skip ⏭");
    await shop.nextMessage({ match: /How much should the customer pay/ });
    await answer("30,000", /on-chain address/);
    const speed = await answer(ADDRESS, /How fast/);
    await shop.press(speed, /Medium/);
    const callback = await shop.nextMessage({ match: /web address/ });
    await shop.press(callback, "Skip ⏭");

    // Both methods by default; the merchant can switch to bank transfer only and back.
    const both = await shop.nextMessage({ match: /Check your payment link/ });
    expect(both.text).toContain("Or in bitcoin over Lightning, for the same amount.");
    expect(buttonLabels(both)).toEqual(["✅ Create link", "🏦 Bank transfer only", "❌ Cancel"]);
    await shop.press(both, "🏦 Bank transfer only");
    const bankOnly = await shop.nextMessage({ match: /Check your payment link/ });
    expect(bankOnly.text).not.toContain("Lightning");
    expect(buttonLabels(bankOnly)).toEqual(["✅ Create link", "⚡ Also accept Lightning", "❌ Cancel"]);
    await shop.press(bankOnly, "⚡ Also accept Lightning");
    const summary = await shop.nextMessage({ match: /Check your payment link/ });
    expect(summary.text).toContain("over Lightning");

    await shop.press(summary, "✅ Create link");
    const created = await shop.nextMessage({ match: /Payment link created/ });
    expect(created.text).toContain("pay by bank transfer or in bitcoin over Lightning");
    const ref = /Reference: (\S+)/.exec(created.text ?? "")?.[1] ?? "";
    expect(ref).toMatch(/^[0-9a-f-]{36}$/);
    await shop.nextPhoto();
    const link = await ops.stack.app.api.getPaymentLinkOrders(ref);
    expect(link.paymentMethods).toEqual(["BANKTRANSFER", "LIGHTNING"]);
    await shop.send(`/link ${ref.slice(0, 8)}`);
    const shown = await shop.nextMessage({ match: /Orders/ });
    expect(shown.text).toMatch(/\d+-\d+ · PENDING · .+\n• \d+-\d+ · PENDING · .+ ⚡/);

    // The checkout page, key-less: details, a fresh invoice, then status polling.
    const details = await checkout(`/paymentlink/details?id=${ref}&paymentMethod=LIGHTNING`);
    expect(details.status).toBe(200);
    const first = details.body.data.paymentLinkDetails;
    expect(first.LIGHTNING.invoice).toMatch(/^lntbs/);
    const refreshed = await checkout(`/paymentlink/refresh?id=${ref}&paymentMethod=LIGHTNING`);
    const fresh = refreshed.body.data.paymentLinkDetails;
    expect(fresh.LIGHTNING.invoice).not.toBe(first.LIGHTNING.invoice);
    const orderId: string = fresh.paymentLinkOrderId;
    const status = async () => (await checkout(`/paymentlink/status?orderId=${orderId}`)).body.data.status;
    expect(await status()).toBe("PENDING");

    await ops.stack.app.api.simulatePayIn({ orderId, currency: "BTC" });
    const received = await shop.nextMessage({ match: /Payment received/ });
    expect(received.text).toContain("Jollof for 4");
    expect(received.text).toContain("₦30,000.00");
    expect(received.text).toContain("⚡ Paid over Lightning.");
    const sats = /([\d,]+ sats)/.exec(received.text ?? "")?.[1];
    expect(sats?.replace(/[^\d]/g, "")).toBe(String(fresh.LIGHTNING.targetAmount));
    const sent = await shop.nextMessage({ match: /Bitcoin sent/ });
    expect(sent.text).toContain(`${sats} (₦30,000.00)`);

    const seen: string[] = [];
    for (let poll = 0; poll < 10 && seen.at(-1) !== "SETTLED"; poll += 1) {
      seen.push(await status());
      if (seen.at(-1) !== "SETTLED") await ops.stack.mineBlocks(1);
    }
    expect(seen.at(-1)).toBe("SETTLED");
    const settled = await shop.nextMessage({ match: /Payment link settled/ });
    expect(settled.text).toContain(`₦30,000.00 paid · ${sats} confirmed`);
    expect(await ops.stack.app.store.paymentLinks.get(ref)).toMatchObject({ status: "settled" });
  });
});
