import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayoutApi } from "#src/api/index.js";
import { createRateAlertChecker } from "#src/bot/account/alerts/checker.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { createLogger } from "#src/log/logger.js";
import { createStore, MAX_RATE_ALERTS } from "#src/store/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { buttons, pressAndEdit, typeAndRead } from "./payout-support.ts";

/** Sandbox default: 1 BTC = 100,000 USD, 1 USD = 1,500 NGN → 100,000 sats = ₦150,000.00. */
async function setUsdRates(stack: Stack, usdRates: Record<string, number>): Promise<void> {
  const response = await fetch(`${stack.sandbox.origin}/_sandbox/prices`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ usdRates }),
  });
  expect(response.status).toBe(200);
}

describe("rate alerts", () => {
  let stack: Stack;
  beforeAll(async () => {
    // The schedule is left to the test: every check below is called explicitly (and concurrently).
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("fires once when the sandbox price crosses, across two checkers, and Send now opens the payout flow", async () => {
    const user = stack.tg.user({ id: 7300, language_code: "en" });
    await user.send("/price ng");
    const card = await user.nextMessage({ match: "Bitcoin in Nigeria" });
    expect(buttons(card)).toContain("🔔 Alert me");
    await (await user.press(card, "🔔 Alert me")).answer();
    const prompt = await user.nextMessage({ match: "Rate alert for Nigeria" });
    expect(prompt.text).toContain("100,000 sats buy ₦150,000.00");

    expect((await typeAndRead(user, "lots")).text).toContain("I could not read that amount");
    expect((await typeAndRead(user, "140000")).text).toContain("already buy ₦150,000.00");
    const set = await typeAndRead(user, "₦160,000");
    expect(set.text).toContain("100,000 sats buy more than ₦160,000.00 in Nigeria");
    expect(await stack.app.store.rateAlerts.list(7300)).toMatchObject([
      { country: "NG", threshold: 16_000_000 },
    ]);

    // Below the threshold: nothing fires, the alert stays armed.
    expect(await (stack.app.job("rate-alerts").run() as Promise<number>)).toBe(0);
    expect(await stack.app.store.rateAlerts.list(7300)).toHaveLength(1);

    // 1 USD = 1,700 NGN → 100,000 sats = ₦170,000.00: crossed. Three checks at once, one of them a second
    // "process" (its own Redis connection, API client and checker).
    await setUsdRates(stack, { NGN: 1700 });
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const api = createPayoutApi({
      baseUrl: stack.sandbox.baseUrl,
      apiKey: stack.sandbox.apiKey,
      logger: createLogger({ level: "silent", pretty: false }),
    });
    try {
      const store = createStore(redis);
      const other = createRateAlertChecker({
        store,
        api,
        telegram: stack.app.bot.api,
        translator: stack.app.translator,
        languageOf: languageResolver(store.users, stack.app.accountLanguage),
        logger: createLogger({ level: "silent", pretty: false }),
      });
      const sent = await Promise.all([
        stack.app.job("rate-alerts").run() as Promise<number>,
        stack.app.job("rate-alerts").run() as Promise<number>,
        other.check(),
      ]);
      expect(sent.reduce((sum, count) => sum + count, 0)).toBe(1);
      expect(await other.check()).toBe(0);
    } finally {
      await api.close();
      await redis.quit();
    }

    const fired = await user.nextMessage({ match: "Good rate in Nigeria" });
    expect(fired.text).toContain("100,000 sats now buy ₦170,000.00, more than your ₦160,000.00");
    expect(buttons(fired)).toEqual(["💸 Send now", "🔔 New alert"]);
    expect(user.messages().filter((message) => message.text?.includes("Good rate"))).toHaveLength(1);
    expect(await stack.app.store.rateAlerts.list(7300)).toEqual([]);

    // Send now: the payout flow, already in Nigeria (the bank step), no country picker.
    await (await user.press(fired, "💸 Send now")).answer();
    const bankStep = await user.nextMessage();
    expect(bankStep.text).toMatch(/Which bank/);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });
    await setUsdRates(stack, { NGN: 1500 });
  });

  it("lists alerts and removes one from the list", async () => {
    const user = stack.tg.user({ id: 7301, language_code: "en" });
    await user.send("/alert ke");
    await user.nextMessage({ match: "Rate alert for Kenya" });
    await typeAndRead(user, "14000", /buy more than KSh 14,000.00 in Kenya/);
    await user.send("/alert");
    const picker = await user.nextMessage({ match: "Your rate alerts" });
    await (await user.press(picker, "🇬🇭 GH")).answer();
    await user.nextMessage({ match: "Rate alert for Ghana" });
    await typeAndRead(user, "1300", /buy more than GH₵ 1,300.00 in Ghana/);

    await user.send("/alerts");
    const list = await user.nextMessage({ match: "Your rate alerts" });
    expect(list.text).toContain("1. 🇬🇭 when 100,000 sats buy more than GH₵ 1,300.00");
    expect(list.text).toContain("2. 🇰🇪 when 100,000 sats buy more than KSh 14,000.00");
    const removed = await pressAndEdit(user, list, "🗑 Remove 2 🇰🇪", /Your rate alerts/);
    expect(removed.text).not.toContain("KSh");
    expect(removed.text).toContain("1. 🇬🇭 when 100,000 sats buy more than GH₵ 1,300.00");
    expect(user.callbackAnswers().some((answer) => answer.text === "Alert removed.")).toBe(true);
    expect((await stack.app.store.rateAlerts.list(7301)).map((alert) => alert.country)).toEqual(["GH"]);
  });

  it("keeps at most five alerts per user", async () => {
    for (let n = 0; n < MAX_RATE_ALERTS; n += 1)
      await stack.app.store.rateAlerts.add({ userId: 7302, country: "ZA", threshold: 20_000_000 + n });
    const user = stack.tg.user({ id: 7302, language_code: "en" });
    await user.send("/alerts");
    const list = await user.nextMessage({ match: "Your rate alerts" });
    expect(list.text).toContain("the most I keep");
    expect(buttons(list).filter((text) => text.startsWith("🗑"))).toHaveLength(MAX_RATE_ALERTS);
    await user.send("/alert za");
    expect((await user.nextMessage()).text).toContain("You already have 5 rate alerts");
    expect(await stack.app.store.rateAlerts.list(7302)).toHaveLength(MAX_RATE_ALERTS);
  });
});

describe("rate alerts on their schedule", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateAlertEveryMs: 300 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("the scheduled check notices the move by itself and notifies in the user's language", async () => {
    const user = stack.tg.user({ id: 7310, language_code: "fr" });
    await user.send("/alert GH");
    await user.nextMessage({ match: "Alerte de cours pour Ghana" });
    await typeAndRead(user, "1250", /vaudront plus de/);
    // 1 USD = 13 GHS → 100,000 sats = GH₵ 1,300: above GH₵ 1,250.
    await setUsdRates(stack, { GHS: 13 });
    const fired = await user.nextMessage({ match: "Bon cours pour Ghana" });
    expect(buttons(fired)).toEqual(["💸 Envoyer maintenant", "🔔 Nouvelle alerte"]);
    await stack.tg.idle();
    expect(await stack.app.store.rateAlerts.list(7310)).toEqual([]);
    expect(user.messages().filter((message) => message.text?.includes("Bon cours"))).toHaveLength(1);
  });
});
