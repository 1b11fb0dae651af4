import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signWebhookBody } from "#src/events/index.js";
import { formatMoney } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { expectChartPng } from "../support/png.ts";
import { ask, type OpsStack, placeNgnPayout, startOpsStack } from "./admin-stack.ts";

/** /stats, /wallets, /profile, /health, /order, /tx, /user, /block, /unblock, /merchant, /merchants. */
const LOCALE = "en-NG";

describe("ops information and user commands", () => {
  let ops: OpsStack;
  let paid: OrderRecord;
  let open: OrderRecord;

  const placeOrder = (userId: number) =>
    placeNgnPayout(ops.stack, userId, { accountNumber: "0149200000", accountName: "OLADEJI OLAOLU" });

  beforeAll(async () => {
    ops = await startOpsStack();
    const customer = ops.stack.tg.user({
      id: 8_101,
      first_name: "Kemi",
      username: "kemi",
      language_code: "en",
    });
    await customer.send("/start");
    await customer.nextMessage();
    paid = await placeOrder(8_101);
    open = await placeOrder(8_101);
    await ops.stack.payLightning(paid.quoteId);
    await vi.waitFor(
      async () => expect((await ops.stack.app.store.orders.get(paid.orderId))?.stage).toBe("completed"),
      { timeout: 20_000, interval: 100 },
    );
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("/stats counts users, orders by stage and the volume per corridor", async () => {
    const stats = await ask(ops.group, ops.ada, "/stats");
    const text = stats.text ?? "";
    expect(text).toMatch(/Users: \d+ · merchants: 0/);
    for (const window of ["Today \\(UTC\\)", "Last 7 days", "Last 30 days"]) {
      expect(text).toMatch(new RegExp(`${window} · orders: 2`));
    }
    expect(text).toContain("awaiting payment 1 · completed 1");
    const paidSats = formatMoney(paid.pay.amount, "BTCSAT", LOCALE);
    const delivered = formatMoney(paid.receive.amount, "NGNKOBO", LOCALE);
    expect(text).toContain(
      `NG payouts · orders: 2, completed: 1 · paid ${paidSats} · delivered ${delivered}`,
    );
    // The chart of the last 14 days follows, its figures in the caption.
    const chart = await ops.group.nextPhoto();
    expect(chart.caption).toContain("Last 14 days");
    expect(chart.caption).toContain(
      `NG payouts: 1 completed · 0 failed · paid ${paidSats} · delivered ${delivered}`,
    );
    expectChartPng(ops.stack.tg.fileBytes(chart.photo!.at(-1)!.file_id));
  });

  it("/wallets shows every balance in its currency", async () => {
    const wallets = await ops.stack.app.api.getWallets();
    const reply = await ask(ops.group, ops.ben, "/wallets");
    const ngn = wallets.find((wallet) => wallet.currency === "NGN");
    const btc = wallets.find((wallet) => wallet.currency === "BTC");
    expect(reply.text).toContain(`NGN: ${formatMoney(ngn!.balance, "NGNKOBO", LOCALE)}`);
    expect(reply.text).toContain(`BTC: ${formatMoney(btc!.balance, "BTCSAT", LOCALE)}`);
  });

  it("/profile masks the API key and the webhook secret", async () => {
    const reply = await ask(ops.group, ops.ada, "/profile");
    expect(reply.text).toMatch(/Payout account/);
    expect(reply.text).toMatch(/API key: \[redacted\]/);
    expect(reply.text).toMatch(/secret \[redacted\]/);
    expect(reply.text).not.toContain(ops.stack.sandbox.apiKey);
    expect(reply.text).not.toContain(ops.stack.sandbox.webhookSecret);
  });

  it("/health reports the API, Redis, queues, dead letters and the last webhook", async () => {
    const before = await ask(ops.group, ops.ada, "/health");
    expect(before.text).toMatch(/Payout API: ✅ ok/);
    expect(before.text).toMatch(/Redis: ✅ ok/);
    expect(before.text).toMatch(/payout-events \d+/);
    expect(before.text).toMatch(/Dead letters: 0/);
    // The sandbox pinged the webhook when the app registered it at start.
    const lastBefore = before.text?.match(/Last webhook: (\S+)/)?.[1];
    expect(lastBefore).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Straight into the HTTP server's webhook handler, as the payout API calls it (the receiver behind the ops tap).
    const handler = ops.stack.app.payoutWebhook;
    const body = Buffer.from(
      JSON.stringify({
        event: "payment.received",
        data: { id: "x", amount: 1, currency: "NGN", status: "SUCCESS" },
      }),
    );
    const forged = await handler({ rawBody: body, headers: { "x-mavapay-signature": "00".repeat(32) } });
    expect(forged.status).toBe(401);
    const alert = await ops.group.nextMessage({ match: /bad or missing signature/ });
    expect(alert.text).toMatch(/Ops alerts/);
    const ping = Buffer.from(JSON.stringify({ event: "ping", data: { message: "hi" } }));
    // A ping is answered whatever its signature (the provider pings before it signs anything we check), but one that
    // is unsigned or signed with another secret proves nothing: it is not the last webhook.
    for (const headers of [{}, { "x-mavapay-signature": signWebhookBody(ping, "not-the-secret") }]) {
      expect((await handler({ rawBody: ping, headers })).status).toBe(200);
    }
    const unproven = await ask(ops.group, ops.ada, "/health");
    expect(unproven.text?.match(/Last webhook: (\S+)/)?.[1]).toBe(lastBefore);
    const signed = await handler({
      rawBody: ping,
      headers: { "x-mavapay-signature": signWebhookBody(ping, ops.stack.sandbox.webhookSecret) },
    });
    expect(signed.status).toBe(200);
    const after = await ask(ops.group, ops.ada, "/health");
    const lastAfter = after.text?.match(/Last webhook: (\S+)/)?.[1];
    expect(lastAfter).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(Date.parse(lastAfter ?? "")).toBeGreaterThan(Date.parse(lastBefore ?? ""));
    expect(after.text).toMatch(/Bad webhook signatures: 1/);
  });

  it("/order shows our record and the API's view, with a re-check button", async () => {
    const reply = await ask(ops.group, ops.ada, `/order ${paid.orderId}`);
    expect(reply.text).toContain(`Order ${paid.orderId}`);
    expect(reply.text).toMatch(/payout · NG · stage completed/);
    expect(reply.text).toContain("GTBANK PLC ••0000");
    expect(reply.text).toMatch(/Payout API: PAID/);
    const press = await ops.group.press(ops.ada, reply, /Re-check/);
    expect((await press.answer()).text).toMatch(/Checking/);
    expect((await ops.group.nextMessage({ match: /Re-checked/ })).text).toContain(paid.orderId);

    const missing = await ask(ops.group, ops.ada, "/order 99999-0000");
    expect(missing.text).toMatch(/No order 99999-0000/);
    expect((await ask(ops.group, ops.ada, "/order")).text).toMatch(/Usage/);
  });

  it("/tx finds the transactions of an order, account numbers masked", async () => {
    const reply = await ask(ops.group, ops.ben, `/tx ${paid.orderId}`);
    expect(reply.text).toMatch(/SUCCESS/);
    expect(reply.text).toContain(paid.orderId);
    expect(reply.text).not.toContain("0149200000");
    expect((await ask(ops.group, ops.ben, "/tx 00000-0000")).text).toMatch(/No transaction matches/);
  });

  it("/user shows a user's flags and recent orders, by id or @username", async () => {
    const byName = await ask(ops.group, ops.ada, "/user @kemi");
    expect(byName.text).toContain("@kemi (8101)");
    expect(byName.text).toContain(paid.orderId);
    expect(byName.text).toContain(open.orderId);
    expect(byName.text).toMatch(/Orders: 2/);
    const unknown = await ask(ops.group, ops.ada, "/user 424242");
    expect(unknown.text).toMatch(/No user 424242/);
  });

  it("/block stops a user at once; /unblock lets them back in", async () => {
    const customer = ops.stack.tg.user({ id: 8_101 });
    const blocked = await ask(ops.group, ops.ada, "/block 8101");
    expect(blocked.text).toMatch(/is blocked/);
    await customer.send("/start");
    expect((await customer.nextMessage({ match: /paused/ })).text).toMatch(
      /contact the operator of this bot/,
    );
    const audit = await ops.stack.app.store.audit.recent(5);
    expect(audit.some((entry) => entry.action === "user.blocked" && entry.actor === ops.ada.id)).toBe(true);

    expect((await ask(ops.group, ops.ada, "/unblock @kemi")).text).toMatch(/is unblocked/);
    await customer.send("/start");
    expect(
      (await customer.nextMessage({ match: /Hi Kemi/ })).reply_markup?.inline_keyboard.length,
    ).toBeGreaterThan(0);
  });

  it("/merchant approve and revoke, /merchants lists them", async () => {
    const stranger = await ask(ops.group, ops.ada, "/merchant approve 55555");
    expect(stranger.text).toMatch(/must open the bot and press Start first/);
    expect((await ask(ops.group, ops.ada, "/merchant approve @kemi")).text).toMatch(/is now a merchant/);
    expect((await ops.stack.app.store.users.get(8_101))?.merchant).toBe(true);
    expect((await ask(ops.group, ops.ben, "/merchants")).text).toMatch(
      /Merchants \(1\)[\s\S]*@kemi \(8101\) · payment links: 0/,
    );
    expect((await ask(ops.group, ops.ben, "/merchant revoke 8101")).text).toMatch(/no longer a merchant/);
    expect((await ops.stack.app.store.users.get(8_101))?.merchant).toBe(false);
    expect((await ask(ops.group, ops.ben, "/merchant")).text).toMatch(/Usage/);
  });
});
