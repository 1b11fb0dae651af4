import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { claimBroadcast } from "#src/bot/ops/broadcast/broadcast.js";
import { quotesPaused } from "#src/bot/rules/pauses.js";
import { keys } from "#src/store/index.js";
import { ask, buttonLabels, type OpsStack, placeNgnPayout, startOpsStack } from "./admin-stack.ts";

/** /maintenance, /broadcast, /simulate and the alerts posted to the group. */
const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

describe("ops operations", () => {
  let ops: OpsStack;

  const placePayout = (userId: number, accountNumber: string) =>
    placeNgnPayout(ops.stack, userId, { accountNumber, accountName: "ADA OBI" });

  const stageOf = async (orderId: string) => (await ops.stack.app.store.orders.get(orderId))?.stage;

  beforeAll(async () => {
    ops = await startOpsStack({ env: { LOW_BALANCE_ALERTS: "NGN:999999999999,BTC:1" } });
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("/maintenance pauses new quotes everywhere with the ops message; running orders continue", async () => {
    const { tg, app } = ops.stack;
    const user = tg.user({ id: 8_201, first_name: "Tayo", language_code: "en" });
    await user.send("/start");
    const menu = await user.nextMessage();

    const on = await ask(ops.group, ops.ada, "/maintenance on Back at 14:00 <WAT>");
    expect(on.text).toMatch(/paused/);
    expect(on.text).toContain("Back at 14:00 <WAT>");
    expect(await quotesPaused(app.deps)).toEqual({
      paused: true,
      scope: "all",
      message: "Back at 14:00 <WAT>",
    });

    await user.send("/send");
    const notice = await user.nextMessage();
    expect(notice.text).toMatch(/New transfers are paused/);
    expect(notice.text).toContain("Back at 14:00 <WAT>");
    await user.send("/buy");
    expect((await user.nextMessage()).text).toMatch(/New transfers are paused/);
    const press = await user.press(menu, "💸 Send money");
    expect((await press.answer()).text).toMatch(/paused for maintenance/);
    expect((await user.nextMessage()).text).toMatch(/New transfers are paused/);

    // An order that was already running is paid and completes normally.
    const running = await placePayout(8_201, "0149200000");
    await ops.stack.payLightning(running.quoteId);
    await vi.waitFor(async () => expect(await stageOf(running.orderId)).toBe("completed"), {
      timeout: 20_000,
      interval: 100,
    });

    const status = await ask(ops.group, ops.ben, "/maintenance");
    expect(status.text).toMatch(/everything: paused since .*, until you resume/);
    expect((await ask(ops.group, ops.ben, "/maintenance off")).text).toMatch(/open/);
    expect(await quotesPaused(app.deps)).toEqual({ paused: false });
    user.consumeAll();
    await user.send("/send");
    const first = await user.nextMessage();
    expect(first.text).not.toMatch(/paused/);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });
    const audit = (await app.store.audit.recent(20)).map((entry) => entry.action);
    expect(audit).toEqual(expect.arrayContaining(["maintenance.on", "maintenance.off"]));
  });

  it("/broadcast: text → preview → confirm by its author → delivery, 403s marked, count posted", async () => {
    const { tg, app } = ops.stack;
    const reader = tg.user({ id: 8_301, first_name: "Reader", language_code: "en" });
    const leaver = tg.user({ id: 8_302, first_name: "Leaver", language_code: "en" });
    const banned = tg.user({ id: 8_303, first_name: "Banned", language_code: "en" });
    for (const user of [reader, leaver, banned, ops.ada]) {
      await user.send("/start");
      await user.nextMessage();
    }
    leaver.block();
    await ask(ops.group, ops.ada, "/block 8303", /is blocked/);
    // Everyone the bot knows, and how the delivery should go for each of them.
    const known: number[] = [];
    for await (const page of app.store.users.ids()) known.push(...page);
    const records = await Promise.all(known.map((id) => app.store.users.get(id)));
    const skipped = records.filter((user) => user?.blocked || user?.unreachable).length;
    const reachable = new Set([8_201, 8_301, ops.ada.id]);
    const expectedDelivered = known.filter((id) => reachable.has(id)).length;
    const expectedUnreachable = known.length - skipped - expectedDelivered;

    const prompt = await ask(ops.group, ops.ada, "/broadcast", /Reply with the message/);
    await ops.group.send(ops.ada, "Naira payouts are faster today <3", { replyTo: prompt });
    const preview = await ops.group.nextMessage();
    expect(preview.text).toBe("Naira payouts are faster today <3");
    const confirm = await ops.group.nextMessage({ match: /exactly what users will get/ });
    expect(confirm.text).toContain(`to ${known.length} users`);

    const intruder = await ops.group.press(ops.ben, confirm, "📣 Send");
    expect((await intruder.answer()).text).toMatch(/belongs to the admin who started it/);
    const send = await ops.group.press(ops.ada, confirm, "📣 Send");
    const twice = await ops.group.press(ops.ada, confirm, "📣 Send");
    expect((await send.answer()).text).toMatch(/Sending/);
    expect((await twice.answer()).text).toMatch(/already sent/);
    expect((await ops.group.nextMessage()).text).toMatch(/Sending to/);
    const finished = await ops.group.nextMessage({ match: /Broadcast finished/ });
    expect(finished.text).toBe(
      `📣 Broadcast finished: delivered ${expectedDelivered}, failed 0, blocked the bot ${expectedUnreachable}, skipped ${skipped}.`,
    );
    expect((await reader.nextMessage({ match: /faster today/ })).text).toBe(
      "Naira payouts are faster today <3",
    );
    expect((await app.store.users.get(8_302))?.unreachable).toBe(true);
    await tg.idle();
    expect(banned.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
  });

  it("/broadcast runs one at a time", async () => {
    const lock = await claimBroadcast(ops.stack.app.deps.store);
    expect(lock).toBeDefined();
    expect((await ask(ops.group, ops.ada, "/broadcast")).text).toMatch(/already running/);
    await ops.stack.redis.del("broadcast:lock");
  });

  it("/simulate pays an order in the sandbox (bank transfer of the exact total)", async () => {
    const { app } = ops.stack;
    const quote = await app.api.createQuote({
      amount: 1_500_000,
      sourceCurrency: "NGNKOBO",
      targetCurrency: "BTCSAT",
      paymentMethod: "BANKTRANSFER",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
      speed: "fast",
      beneficiary: { onChainAddress: TESTNET_ADDRESS },
    });
    const reply = await ask(ops.group, ops.ben, `/simulate ${quote.orderId}`);
    expect(reply.text).toContain(`Simulated the payment of ${quote.orderId}`);
    expect((await app.api.getOrder(quote.orderId!)).status).toBe("PAID");
    const again = await ask(ops.group, ops.ben, `/simulate ${quote.orderId}`);
    expect(again.text).toMatch(/already paid/);
  });

  it("alerts: a failed payout is posted with buttons that show the order", async () => {
    const customer = ops.stack.tg.user({ id: 8_401, first_name: "Femi", language_code: "en", started: true });
    const failing = await placePayout(customer.id, "0123456999");
    await ops.stack.payLightning(failing.quoteId);
    const alert = await ops.group.nextMessage({ match: new RegExp(`Order ${failing.orderId} failed`) });
    expect(alert.text).toMatch(/Ops alerts/);
    expect(alert.text).toMatch(/payment was received: follow up/);
    expect(buttonLabels(alert)).toEqual(expect.arrayContaining([`🧾 ${failing.orderId}`, "🔄 Re-check"]));
    const press = await ops.group.press(ops.cy, alert, `🧾 ${failing.orderId}`);
    await press.answer();
    const details = await ops.group.nextMessage({ match: /stage failed/ });
    expect(details.text).toContain(failing.orderId);

    // "Re-deliver": the customer gets the status card again, as a new message the pipeline edits from now on.
    expect(buttonLabels(alert)).toContain("📨 Re-deliver");
    customer.consumeAll();
    await (await ops.group.press(ops.cy, alert, "📨 Re-deliver")).answer();
    const card = await customer.nextMessage({ match: /Failed/ });
    expect(card.text).toContain(`order ${failing.orderId}`);
    expect(card.text).toMatch(/held for you: tap “Get my sats back”/);
    expect((await ops.group.nextMessage({ match: /was sent again/ })).text).toContain(failing.orderId);
    expect((await ops.stack.app.store.orders.get(failing.orderId))?.statusMessageId).toBe(card.message_id);

    // A customer who blocked the bot: Telegram's refusal is shown to ops, nothing is recorded as delivered.
    customer.block();
    await (await ops.group.press(ops.cy, alert, "📨 Re-deliver")).answer();
    const refused = await ops.group.nextMessage({ match: /refused to deliver/ });
    expect(refused.text).toMatch(/blocked/i);
    expect((await ops.stack.app.store.orders.get(failing.orderId))?.statusMessageId).toBe(card.message_id);
  });

  it("alerts: low wallet balances, once until they recover", async () => {
    await ops.alerts.check();
    const low = await ops.group.nextMessage({ match: /wallet is low/ });
    expect(low.text).toMatch(/NGN wallet is low/);
    expect(low.text).not.toMatch(/BTC wallet/);
    // The check runs in one process at a time (a short lock); this is the next period's run.
    const redis = ops.stack.redis;
    await redis.del(keys.alertCheckLock());
    await ops.alerts.check();
    expect(await redis.llen(keys.alertQueue())).toBe(0);
    await ops.stack.tg.idle({ quietMs: 600 });
    expect(ops.group.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
  });
});
