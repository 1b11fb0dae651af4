import { randomBytes } from "node:crypto";
import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import type { OrderRecord } from "#src/store/index.js";
import { keys } from "#src/store/index.js";
import { type LnurlServer, startLnurlServer } from "../support/lnurl-server.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttonLabels, type OpsStack, startOpsStack } from "./admin-stack.ts";
import { buttons, confirmQuote, nigerianRecipient, orderOf, quoteFor } from "./payout-support.ts";

/**
 * "Get my sats back" end to end: a real NGN payout that fails after the user paid (account ending 999 in the
 * sandbox), the refund to a pasted invoice, to a Lightning address served by a local LNURL-pay server, and one above
 * the approval threshold that waits for an admin in the ops group. Withdrawals are counted at the sandbox.
 */
const THRESHOLD_SATS = 20_000;

describe("refunds of held sats", () => {
  let ops: OpsStack;
  let lnurl: LnurlServer;

  beforeAll(async () => {
    lnurl = await startLnurlServer();
    ops = await startOpsStack({
      env: {
        REFUND_APPROVAL_THRESHOLD_SATS: String(THRESHOLD_SATS),
        SUPPORT_CONTACT: "@payouts_help",
      },
      outbound: lnurl.network,
    });
  });
  afterAll(async () => {
    await ops?.stop();
    await lnurl?.close();
  });

  const refundWithdrawals = (invoice?: string) =>
    ops.stack.sandbox.state.transactions.filter(
      (tx) =>
        tx.origin === "withdraw-btc" &&
        (invoice === undefined ||
          (tx.beneficiary as { lnInvoice?: string } | undefined)?.lnInvoice === invoice),
    );

  const signetInvoice = (amountSats: number, network = "tbs") =>
    encodeInvoice({
      amountSats,
      paymentHash: randomBytes(32),
      paymentSecret: randomBytes(32),
      description: "my refund",
      timestamp: Math.floor(Date.now() / 1000),
      expirySeconds: 3600,
      network,
    });

  /** A payout to an account ending in 999, paid, failed at the sandbox: the card the user ends on. */
  async function failedPayout(
    user: UserDriver,
    naira: string,
  ): Promise<{ order: OrderRecord; card: Message }> {
    await nigerianRecipient(user, { account: "0123456999" });
    const quote = await quoteFor(user, naira);
    const placed = await orderOf(ops.stack, quote);
    const { invoice, status } = await confirmQuote(user, quote);
    await (await user.press(invoice, /Simulate/)).answer();
    const card = await user.nextEdit(status, { match: /Failed/ });
    const order = await ops.stack.app.store.orders.get(placed.orderId);
    return { order: order!, card };
  }

  it("a failed NGN payout is refunded to a pasted invoice exactly once", async () => {
    const user = ops.stack.tg.user({ id: 9_101, first_name: "Tunde", language_code: "en" });
    const { order, card } = await failedPayout(user, "4000");
    const amount = order.pay.amount;
    expect(amount).toBeLessThanOrEqual(THRESHOLD_SATS);
    expect(card.text).toMatch(/held for you: tap “Get my sats back”/);
    expect(card.text).toContain("when you contact @payouts_help");
    expect(buttons(card)).toEqual(["💸 Get my sats back"]);
    // A second copy of the button, as /status shows it: it stays on screen after the refund.
    await user.send(`/status ${order.orderId}`);
    const statusCopy = await user.nextMessage({ match: /Payout/ });
    expect(buttons(statusCopy)).toContain("💸 Get my sats back");

    // A double tap opens one prompt; the second press is told the bot is waiting.
    const first = await user.press(card, /Get my sats back/);
    const second = await user.press(card, /Get my sats back/);
    await first.answer();
    expect((await second.answer()).text).toMatch(/Send the invoice or the Lightning address/);
    const prompt = await user.nextMessage({ match: /Get your sats back/ });
    expect(prompt.text).toContain(`exactly ${amount.toLocaleString("en")} sats`);

    await user.send("hello");
    await user.nextMessage({ match: /neither a Lightning invoice nor a Lightning address/ });
    await user.send(signetInvoice(amount + 1));
    await user.nextMessage({ match: /That invoice is not for [\d,]+ sats/ });
    await user.send(signetInvoice(amount, "bc"));
    await user.nextMessage({ match: /another Bitcoin network; this service pays signet/ });
    expect(refundWithdrawals()).toHaveLength(0);

    const invoice = signetInvoice(amount);
    await user.send(invoice);
    const refundCard = await user.nextMessage({ match: /Refund<\/b>|Refund ·/ });
    expect(refundCard.text).toContain(`Refund · order ${order.orderId}`);
    const paid = await user.nextEdit(refundCard, { match: /Refunded\./ });
    expect(paid.text).toMatch(/To invoice: lntbs\S+…\S+/);
    expect(paid.text).not.toContain(invoice);
    expect(paid.text).toMatch(/Reference: \S+/);
    expect(buttonLabels(paid)).toEqual(["💬 Contact support"]);
    const receipt = await user.nextMessage({ match: /Refund receipt/ });
    expect(receipt.text).toContain(`Amount refunded: ${amount.toLocaleString("en")} sats`);

    // The order's own card shows the refund and loses the button.
    const statusCard = await user.nextEdit(card, { match: /✅ paid/ });
    expect(statusCard.text).toMatch(/Refund of [\d,]+ sats: ✅ paid/);
    expect(buttons(statusCard)).toEqual([]);

    // Pasting the invoice again and pressing the old copy of the button move nothing.
    await user.send(invoice);
    // The flow is over: the paste is just text now (the menu answers it).
    expect((await user.nextMessage()).text).not.toMatch(/Refund/);
    const again = await user.press(statusCopy, /Get my sats back/);
    expect((await again.answer()).text).toMatch(/already under way or done/);
    expect(refundWithdrawals(invoice)).toHaveLength(1);
    expect(refundWithdrawals()).toHaveLength(1);
    const stored = await ops.stack.app.store.orders.get(order.orderId);
    expect(stored?.refund).toMatchObject({ state: "paid", amountSats: amount });
    const refund = await ops.stack.app.store.refunds.get(order.orderId);
    expect(refund).toMatchObject({ state: "paid", attempt: 1, destinationKind: "invoice" });

    // /status shows it too.
    await user.send(`/status ${order.orderId}`);
    expect((await user.nextMessage({ match: /Payout/ })).text).toMatch(/Refund of [\d,]+ sats: ✅ paid/);
  });

  it("a Lightning address is resolved through LNURL-pay and paid once", async () => {
    const user = ops.stack.tg.user({ id: 9_102, first_name: "Amaka", language_code: "en" });
    const { order, card } = await failedPayout(user, "3000");
    const before = refundWithdrawals().length;
    await (await user.press(card, /Get my sats back/)).answer();
    await user.nextMessage({ match: /Get your sats back/ });
    // An address on this machine or the private network is refused before any connection, with the message an
    // address that does not answer gets.
    const connections = lnurl.connections;
    for (const probe of ["probe@127.0.0.1", "probe@169.254.169.254", "probe@nowhere.test"]) {
      await user.send(probe);
      await user.nextMessage({ match: /could not get a usable invoice from that Lightning address/ });
    }
    expect(lnurl.connections).toBe(connections);
    await user.send(lnurl.address("alice"));
    const refundCard = await user.nextMessage({ match: /Refund ·/ });
    expect(refundCard.text).toContain(`To: alice@wallet.test`);
    await user.nextEdit(refundCard, { match: /Refunded\./ });
    expect(lnurl.requests).toEqual(
      expect.arrayContaining(["GET /.well-known/lnurlp/alice", `GET /cb?amount=${order.pay.amount * 1000}`]),
    );
    expect(lnurl.invoices).toHaveLength(1);
    expect(refundWithdrawals(lnurl.invoices[0])).toHaveLength(1);
    expect(refundWithdrawals()).toHaveLength(before + 1);
  });

  it("a refund above the threshold waits for an admin's approval in the ops group", async () => {
    const user = ops.stack.tg.user({
      id: 9_103,
      first_name: "Chidi",
      username: "chidi",
      language_code: "en",
    });
    const { order, card } = await failedPayout(user, "40000");
    const amount = order.pay.amount;
    expect(amount).toBeGreaterThan(THRESHOLD_SATS);
    const before = refundWithdrawals().length;
    await (await user.press(card, /Get my sats back/)).answer();
    await user.nextMessage({ match: /Get your sats back/ });
    const invoice = signetInvoice(amount);
    await user.send(invoice);
    const refundCard = await user.nextMessage({ match: /Refund ·/ });
    expect(refundCard.text).toMatch(/Waiting for approval/);

    const request = await ops.group.nextMessage({ match: /Refund<\/b> · request|Refund · request/ });
    expect(request.text).toContain(`Order ${order.orderId}: payout failed, sats held`);
    expect(request.text).toContain("Requested by @chidi");
    expect(buttonLabels(request)).toEqual(["✅ Approve", "✖️ Reject"]);
    expect(refundWithdrawals()).toHaveLength(before);
    const alert = await ops.group.nextMessage({
      match: (message) => !!message.text?.includes(`Refund for order ${order.orderId}`),
    });
    expect(alert.text).toMatch(/\(user 9103, [\d,]+ sats\): waiting for approval/);

    const first = await ops.group.press(ops.ada, request, "✅ Approve");
    const second = await ops.group.press(ops.ben, request, "✅ Approve");
    expect((await first.answer()).text).toMatch(/Approved — sending now/);
    expect((await second.answer()).text).toMatch(/Already approved/);
    await ops.group.nextEdit(request, { match: /Approved by @ada_ops and sent/ });
    await user.nextEdit(refundCard, { match: /Refunded\./ });
    await user.nextMessage({ match: /Refund receipt/ });
    expect(refundWithdrawals(invoice)).toHaveLength(1);
    expect(refundWithdrawals()).toHaveLength(before + 1);
    expect((await ops.stack.app.store.refunds.get(order.orderId))?.state).toBe("paid");
    const actions = (await ops.stack.app.store.audit.recent(30)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(["refund.request", "treasury.approved", "refund.status"]));
  });

  it("a rejected refund sends nothing and tells the user whom to contact", async () => {
    const user = ops.stack.tg.user({ id: 9_105, first_name: "Zola", language_code: "en" });
    const { order, card } = await failedPayout(user, "40000");
    const before = refundWithdrawals().length;
    await (await user.press(card, /Get my sats back/)).answer();
    await user.nextMessage({ match: /Get your sats back/ });
    await user.send(signetInvoice(order.pay.amount));
    const refundCard = await user.nextMessage({ match: /Refund ·/ });
    const request = await ops.group.nextMessage({
      match: (message) => !!message.text?.includes(`Order ${order.orderId}: payout failed`),
    });
    await (await ops.group.press(ops.ben, request, "✖️ Reject")).answer();
    const rejected = await user.nextEdit(refundCard, { match: /not approved/ });
    expect(rejected.text).toContain("Please contact @payouts_help about this order");
    const statusCard = await user.nextEdit(card, { match: /Refund of [\d,]+ sats: not approved/ });
    expect(buttons(statusCard)).toEqual([]);
    expect(refundWithdrawals()).toHaveLength(before);
    expect((await ops.stack.app.store.refunds.get(order.orderId))?.state).toBe("rejected");
  });

  it("an uncertain withdrawal is never sent again: it is read back by the invoice's hash and settled", async () => {
    const user = ops.stack.tg.user({ id: 9_104, first_name: "Kofi", language_code: "en" });
    const { order, card } = await failedPayout(user, "2500");
    const control = (path: string, body: unknown) =>
      fetch(`${ops.stack.sandbox.origin}/_sandbox/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    // The withdrawal happens but its answer is a 500, and no webhook tells the bot afterwards.
    expect((await control("account", { webhook: { isActive: false } })).ok).toBe(true);
    expect((await control("faults", { endpoint: "POST /withdraw/btc", mode: "500-after" })).ok).toBe(true);
    try {
      await (await user.press(card, /Get my sats back/)).answer();
      await user.nextMessage({ match: /Get your sats back/ });
      const invoice = signetInvoice(order.pay.amount);
      await user.send(invoice);
      const refundCard = await user.nextMessage({ match: /Refund ·/ });
      const uncertain = await user.nextEdit(refundCard, { match: /could not confirm/ });
      expect(uncertain.text).toContain("it will not be sent twice. Questions: contact @payouts_help");
      const stuck = await user.nextEdit(card, { match: /being checked/ });
      expect(buttons(stuck)).toEqual([]);
      expect(refundWithdrawals(invoice)).toHaveLength(1);
      expect((await ops.stack.app.store.refunds.get(order.orderId))?.state).toBe("uncertain");

      // The periodic ops check reads the withdrawal back by the payment hash: it was paid.
      await ops.stack.redis.del(keys.alertCheckLock());
      await ops.alerts.check();
      await user.nextEdit(refundCard, { match: /Refunded\./ });
      await user.nextMessage({ match: /Refund receipt/ });
      expect(refundWithdrawals(invoice)).toHaveLength(1);
      const actions = (await ops.stack.app.store.audit.recent(20)).map((entry) => entry.action);
      expect(actions).toEqual(expect.arrayContaining(["refund.uncertain", "refund.status"]));
    } finally {
      await control("account", { webhook: { isActive: true } });
    }
  });
});
