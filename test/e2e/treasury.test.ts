import { randomBytes } from "node:crypto";
import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireFeatures } from "#src/bot/features.js";
import { adminFeature } from "#src/bot/ops/feature.js";
import { approvalData } from "#src/bot/rules/approval-data.js";
import { encodeInvoice } from "#src/standins/sandbox/bolt11.js";
import { keys } from "#src/store/index.js";
import { ask, buttonLabels, type OpsStack, startOpsStack } from "./admin-stack.ts";

/**
 * Treasury withdrawals with four eyes, end to end: the flow in the admin group, the approval card, the payout
 * sandbox moving (or not moving) the money.
 */
describe("treasury withdrawals", () => {
  let ops: OpsStack;

  const balance = async (currency: "NGN" | "BTC") =>
    (await ops.stack.app.api.getWallets()).find((wallet) => wallet.currency === currency)!.balance;
  const approvalId = (card: Message) => {
    const data = card.reply_markup?.inline_keyboard
      .flat()
      .find((button) => "callback_data" in button)?.callback_data;
    return approvalData.unpack(data!).id;
  };

  /** Ada walks /withdraw_ngn to its confirm screen. */
  async function ngnConfirmScreen(amount: string): Promise<Message> {
    const { group, ada } = ops;
    const amountPrompt = await ask(group, ada, "/withdraw_ngn", /NGN withdrawal/);
    expect(amountPrompt.text).toMatch(/Wallet balance: ₦/);
    await group.send(ada, amount, { replyTo: amountPrompt });
    const bankPrompt = await group.nextMessage({ match: /bank's name/ });
    await group.send(ada, "gtbank", { replyTo: bankPrompt });
    const pick = await group.nextMessage({ match: /Which bank/ });
    expect(buttonLabels(pick)).toContain("GTBANK PLC · 000013");
    await group.press(ada, pick, "GTBANK PLC · 000013");
    const accountPrompt = await group.nextMessage({ match: /10-digit account number at GTBANK PLC/ });
    await group.send(ada, "0000000000", { replyTo: accountPrompt });
    const retry = await group.nextMessage({ match: /Name enquiry failed/ });
    await group.send(ada, "0149200000", { replyTo: retry });
    return group.nextMessage({ match: /Request approval|Check every detail/ });
  }

  /** Ada walks /withdraw_btc with a fresh signet invoice to its confirm screen. */
  async function btcConfirmScreen(amountSats: number): Promise<Message> {
    const { group, ada } = ops;
    const prompt = await ask(group, ada, "/withdraw_btc", /BTC withdrawal/);
    const invoice = encodeInvoice({
      amountSats,
      paymentHash: randomBytes(32),
      paymentSecret: randomBytes(32),
      description: "supplier",
      timestamp: Math.floor(Date.now() / 1000),
      expirySeconds: 3600,
    });
    await group.send(ada, invoice, { replyTo: prompt });
    return group.nextMessage({ match: /Check every detail/ });
  }

  async function requestApproval(screen: Message): Promise<Message> {
    await ops.group.press(ops.ada, screen, "✅ Request approval");
    return ops.group.nextMessage({ match: /Needs approval by another admin/ });
  }

  beforeAll(async () => {
    ops = await startOpsStack();
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("NGN: the beneficiary as enquired, a second admin approves, a double press sends once", async () => {
    const { group, ada, ben } = ops;
    const screen = await ngnConfirmScreen("250,000");
    expect(screen.text).toContain("Amount: ₦250,000.00");
    expect(screen.text).toContain("To: OLADEJI OLAOLU");
    expect(screen.text).toContain("GTBANK PLC (000013) · account 0149200000");

    const intruder = await group.press(ben, screen, "✅ Request approval");
    expect((await intruder.answer()).text).toMatch(/belongs to the admin who started it/);
    const card = await requestApproval(screen);
    expect(card.text).toMatch(/NGN withdrawal · request [0-9a-f]{10}/);
    expect(card.text).toContain("Requested by @ada_ops");
    expect(buttonLabels(card)).toEqual(["✅ Approve", "✖️ Reject"]);

    const before = await balance("NGN");
    const own = await group.press(ada, card, "✅ Approve");
    const refused = await own.answer();
    expect(refused.text).toMatch(/another admin must approve/);
    expect(refused.showAlert).toBe(true);
    expect(await balance("NGN")).toBe(before);

    const first = await group.press(ben, card, "✅ Approve");
    const second = await group.press(ben, card, "✅ Approve");
    expect((await first.answer()).text).toMatch(/Approved — sending now/);
    expect((await second.answer()).text).toMatch(/Already approved/);
    const done = await group.nextEdit(card, { match: /and sent/ });
    expect(done.text).toMatch(/Approved by @ben_ops and sent\. Transaction \S+/);
    expect(done.reply_markup).toBeUndefined();
    expect(before - (await balance("NGN"))).toBe(25_000_000);

    const update = await group.nextMessage({ match: /Withdrawal request/ });
    expect(update.text).toContain(`Withdrawal request ${approvalId(card)} (₦250,000.00)`);
    expect(update.text).toMatch(/is now SUCCESS/);
    const actions = (await ops.stack.app.store.audit.recent(30)).map((entry) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        "treasury.request",
        "treasury.self_approval_refused",
        "treasury.approved",
        "treasury.executed",
        "treasury.status",
      ]),
    );
    expect(actions.filter((action) => action === "treasury.executed")).toHaveLength(1);
  });

  it("NGN: an API refusal is reported on the card and never retried", async () => {
    const card = await requestApproval(await ngnConfirmScreen("999,999,999"));
    const before = await balance("NGN");
    const approve = await ops.group.press(ops.cy, card, "✅ Approve");
    const again = await ops.group.press(ops.ben, card, "✅ Approve");
    expect((await approve.answer()).text).toMatch(/Approved — sending now/);
    expect((await again.answer()).text).toMatch(/Already approved/);
    const failed = await ops.group.nextEdit(card, { match: /refused it/ });
    expect(failed.text).toMatch(/Insufficient Balance/);
    expect(failed.text).toMatch(/Nothing was sent\. It is not retried/);
    expect(failed.reply_markup).toBeUndefined();
    expect(await balance("NGN")).toBe(before);
    expect((await ops.stack.app.store.approvals.get(approvalId(card)))?.state).toBe("failed");
  });

  it("BTC: the decoded invoice is shown; a request expires without approval", async () => {
    const screen = await btcConfirmScreen(10_000);
    expect(screen.text).toContain("Amount: 10,000 sats");
    expect(screen.text).toMatch(/Invoice expires: \d\d:\d\d/);
    expect(screen.text).toContain("Description: supplier");
    const card = await requestApproval(screen);
    const before = await balance("BTC");

    // Fifteen minutes pass: the request's deadline is now behind us.
    await ops.stack.redis.hset(`approval:${approvalId(card)}`, "expiresAt", String(Date.now() - 1));
    const late = await ops.group.press(ops.ben, card, "✅ Approve");
    expect((await late.answer()).text).toMatch(/expired/);
    const expired = await ops.group.nextEdit(card, { match: /Expired without approval/ });
    expect(expired.reply_markup).toBeUndefined();
    expect(await balance("BTC")).toBe(before);
  });

  it("BTC: the periodic sweep marks unapproved requests expired on their card", async () => {
    const card = await requestApproval(await btcConfirmScreen(12_000));
    const { app } = ops.stack;
    const later = wireFeatures([adminFeature()], {
      deps: { ...app.deps, now: () => Date.now() + 16 * 60_000 },
      telegram: app.bot.api,
      languageOf: async () => "en",
      metrics: app.metrics,
      schedule: {},
      botToken: "unused",
    });
    await ops.stack.redis.del(keys.alertCheckLock());
    await later.jobs.find((job) => job.name === "ops-checks")?.run();
    const expired = await ops.group.nextEdit(card, { match: /Expired without approval/ });
    expect(expired.reply_markup).toBeUndefined();
    expect((await ops.stack.app.store.approvals.get(approvalId(card)))?.state).toBe("expired");
    expect((await ops.stack.app.store.audit.recent(5)).map((entry) => entry.action)).toContain(
      "treasury.expired",
    );
  });

  it("BTC: a rejected request cannot be approved afterwards", async () => {
    const card = await requestApproval(await btcConfirmScreen(15_000));
    const before = await balance("BTC");
    const reject = await ops.group.press(ops.ben, card, "✖️ Reject");
    const approve = await ops.group.press(ops.cy, card, "✅ Approve");
    expect((await reject.answer()).text).toMatch(/Rejected\. Nothing was sent/);
    expect((await approve.answer()).text).toMatch(/was rejected/);
    const rejected = await ops.group.nextEdit(card, { match: /Rejected by @ben_ops/ });
    expect(rejected.reply_markup).toBeUndefined();
    expect(await balance("BTC")).toBe(before);
  });

  it("BTC: an uncertain outcome (the API acted but answered 500) is reported, not retried", async () => {
    const card = await requestApproval(await btcConfirmScreen(20_000));
    const before = await balance("BTC");
    const fault = await fetch(`${ops.stack.sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "POST /withdraw/btc", mode: "500-after" }),
    });
    expect(fault.ok).toBe(true);
    await (await ops.group.press(ops.ben, card, "✅ Approve")).answer();
    const uncertain = await ops.group.nextEdit(card, { match: /UNKNOWN/ });
    expect(uncertain.text).toMatch(/check \/wallets and \/tx before requesting again/);
    expect(uncertain.reply_markup).toBeUndefined();
    // The sandbox did pay the invoice, exactly once: the client never resent the POST.
    expect(before - (await balance("BTC"))).toBe(20_000);
    expect((await ops.stack.app.store.approvals.get(approvalId(card)))?.state).toBe("uncertain");
  });

  it("refuses a second flow in the group while one is in progress, and /cancel drops it", async () => {
    const prompt = await ask(ops.group, ops.ada, "/withdraw_ngn", /NGN withdrawal/);
    const busy = await ask(ops.group, ops.ben, "/withdraw_btc");
    expect(busy.text).toMatch(/already in progress in this group: the withdrawal you were preparing/);
    await ops.group.send(ops.ada, "/cancel");
    expect((await ops.group.nextMessage()).text).toMatch(/Cancelled: the withdrawal you were preparing/);
    await ops.group.send(ops.ada, "100", { replyTo: prompt });
    await ops.stack.tg.idle();
    expect(ops.group.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
  });
});
