import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type SpawnedBot, spawnBot, stopAllBots } from "../support/spawn-bot.ts";

/**
 * `npm start` with no configuration at all: the sandbox, the Telegram emulator, a private redis-server and the bot
 * start in one process, and the terminal is the chat (typed lines in, the bot's messages and numbered buttons out).
 */
describe("local mode (npm start with no configuration)", () => {
  afterEach(async () => {
    await stopAllBots();
  });

  const type = (bot: SpawnedBot, line: string) => bot.child.stdin?.write(`${line}\n`);

  /** Local mode with nothing configured, once its terminal is the chat. */
  const startLocalChat = async () => {
    const bot = spawnBot({
      inheritEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdin: "pipe",
    });
    await bot.waitForLog("this terminal is your Telegram chat", { timeoutMs: 60_000 });
    return bot;
  };

  /** From /start to the amount prompt of a Nigerian payout: each line typed, and what it brings. */
  const TO_NG_AMOUNT: Array<[string, RegExp]> = [
    ["/start", /\[1\] 💸 Send money/],
    ["1", /\[1\] 🇳🇬 Nigeria · Bank/],
    ["1", /Which bank\?/],
    ["gtb", /\[1\] GTBANK PLC/],
    ["1", /Send the 10-digit account number at GTBANK PLC/],
    ["0149200000", /Is this the person you want to pay\?/],
    ["1", /How much should they receive, in naira\?/],
  ];

  it("gives a usable chat in the terminal and shuts everything down on :quit", async () => {
    const bot = spawnBot({
      inheritEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdin: "pipe",
    });
    await bot.waitForLog("this terminal is your Telegram chat", { timeoutMs: 60_000 });

    type(bot, "/start");
    await bot.waitForLog(/Hi You/, { timeoutMs: 20_000 });
    await bot.waitForLog(/\[1\] 💸 Send money/);
    // docs/local-mode-transcript.md shows the menu as the bot draws it today, every button of it.
    const transcript = readFileSync("docs/local-mode-transcript.md", "utf8").split("\n");
    const start = transcript.findIndex((line) => line.includes("[1] 💸 Send money"));
    const end = transcript.findIndex((line, index) => index > start && !/^\s+\[\d\]/.test(line));
    const documented = transcript.slice(start, end);
    await bot.waitForLog(/\[\d\] ❓ Help/);
    const menu = bot.lines.map((line) => line.raw.trim()).filter((raw) => /^\[\d\] /.test(raw));
    expect(documented.map((line) => line.trim())).toEqual(menu);
    expect(menu).toContain("[2] 💌 Request money");

    type(bot, "1");
    await bot.waitForLog(/Where does it go\?/, { timeoutMs: 20_000 });
    await bot.waitForLog(/🇳🇬 Nigeria · bank account · minimum ₦2,000\.00/);

    type(bot, ":help");
    await bot.waitForLog(/:pay/);

    // The Mini App's local address, signed in as the terminal's user, to open in a browser.
    type(bot, ":miniapp");
    await bot.waitForLog(
      /Mini App \(open in a browser\): http:\/\/[\d.]+:\d+\/miniapp\/#tgWebAppData=\S*hash%3D[0-9a-f]{64}/,
    );

    type(bot, ":quit");
    const exit = await bot.exited;
    expect(exit).toMatchObject({ code: 0 });
    // Nothing but the chat on the terminal: the logs went to .tmp/local.log.
    expect(bot.lines.some((line) => line.raw.startsWith('{"level"'))).toBe(false);
  });

  it(":advance moves the bot's clock too: a quote card flips to expired by itself", async () => {
    const bot = await startLocalChat();
    const steps: Array<[string, RegExp]> = [
      ...TO_NG_AMOUNT,
      ["10000", /holds for [45]:\d\d \(until (\d\d:\d\d)/],
    ];
    for (const [line, expected] of steps) {
      type(bot, line);
      await bot.waitForLog(expected, { timeoutMs: 20_000 });
    }
    const until = (pattern: RegExp) =>
      bot.lines.map((line) => pattern.exec(line.raw)?.[1]).filter((value) => value !== undefined);
    const [firstUntil] = until(/holds for [45]:\d\d \(until (\d\d:\d\d)/);
    type(bot, ":advance 6");
    // Nobody types: the reconciler sees the sandbox's clock and edits the card.
    await bot.waitForLog(new RegExp(`This quote expired at ${firstUntil}`), { timeoutMs: 30_000 });
    await bot.waitForLog(/🔁 New quote/);

    type(bot, ":quit");
    expect(await bot.exited).toMatchObject({ code: 0 });
  });

  it("falls back to in-memory storage, saying so, when there is no Redis at all, and still pays out", async () => {
    // A PATH with nothing on it: no redis-server to find (node itself is spawned by absolute path).
    const emptyPath = mkdtempSync(join(tmpdir(), "no-redis-"));
    try {
      const bot = spawnBot({
        inheritEnv: false,
        env: { PATH: emptyPath, HOME: process.env.HOME },
        stdin: "pipe",
      });
      await bot.waitForLog(/running on IN-MEMORY storage/, { timeoutMs: 60_000 });
      await bot.waitForLog(/lost when you quit/);
      await bot.waitForLog("this terminal is your Telegram chat", { timeoutMs: 60_000 });

      // The whole NGN journey, typed: send money → Nigeria → bank → account → confirm → amount → quote → pay.
      const steps: Array<[string, RegExp]> = [
        ...TO_NG_AMOUNT,
        ["10000", /Recipient gets: ₦10,000\.00/],
        ["1", /⚡ Pay [\d,]+ sats · code/],
        [":pay", /Sandbox: paid order/],
      ];
      for (const [line, expected] of steps) {
        type(bot, line);
        await bot.waitForLog(expected, { timeoutMs: 20_000 });
      }
      // The live status card and the notifications go through the in-process queues.
      await bot.waitForLog(/✅ Payment received for order/, { timeoutMs: 30_000 });
      await bot.waitForLog(/🎉 ₦10,000\.00 delivered to GTBANK PLC ••0000/, { timeoutMs: 30_000 });
      await bot.waitForLog(/Payout reference: /);

      type(bot, ":quit");
      expect(await bot.exited).toMatchObject({ code: 0 });
    } finally {
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });

  it(":advance 31d brings a monthly repeat send due: its card, a fresh quote, Confirm", async () => {
    const bot = await startLocalChat();
    // Each line typed waits for a NEW line of the terminal matching its pattern (the chat repeats some).
    const steps: Array<[string, RegExp]> = [
      ...TO_NG_AMOUNT,
      ["10000", /\[1\] ✅ Confirm/],
      ["1", /Waiting for payment/],
      [":pay", /Completed/],
      // The latest card with buttons: the order's own, with 🧾 Receipt.
      ["/status", /\[1\] 🧾 Receipt/],
      ["1", /Send this again on a schedule/],
      ["2", /Repeat send set up/],
      [":advance 31d", /Your repeat send is due/],
      ["1", /holds for [45]:\d\d/],
      ["1", /Waiting for payment/],
    ];
    const shown = (pattern: RegExp) => bot.lines.filter((line) => pattern.test(line.raw)).length;
    for (const [line, expected] of steps) {
      const before = shown(expected);
      type(bot, line);
      await bot.waitForLog((logged) => expected.test(logged.raw) && shown(expected) > before, {
        timeoutMs: 30_000,
      });
    }
    expect(bot.lines.some((line) => /Recipient gets: ₦10,000\.00/.test(line.raw))).toBe(true);
    // One due card (its later edit has no buttons).
    expect(bot.lines.filter((line) => /\[1\] 💱 Get quote/.test(line.raw))).toHaveLength(1);
    type(bot, ":quit");
    expect(await bot.exited).toMatchObject({ code: 0 });
  }, 90_000);

  it(":price moves the bitcoin price and a rate alert fires; :address gives a /buy address; m.n presses an older button", async () => {
    const bot = await startLocalChat();
    const steps: Array<[string, RegExp]> = [
      [":help", /:price <±percent>/],
      [":address", /^tb1q[a-z0-9]{38}$/],
      ["/price ng", /\[\d\] 🔔 Alert me/],
      ["/start", /\[1\] 💸 Send money/],
    ];
    for (const [line, expected] of steps) {
      type(bot, line);
      await bot.waitForLog(expected, { timeoutMs: 20_000 });
    }
    // The price card is no longer the latest with buttons: its number reaches it.
    const cardNumber = bot.lines
      .map((line) => /🤖 .* #(\d+)$/.exec(line.raw)?.[1])
      .filter((value) => value !== undefined)
      .at(-2);
    const alertButton = bot.lines.map((line) => /\[(\d)\] 🔔 Alert me/.exec(line.raw)?.[1]).find(Boolean);
    const more: Array<[string, RegExp]> = [
      [`${cardNumber}.${alertButton}`, /Rate alert for Nigeria/],
      ["₦160,000", /100,000 sats buy more than ₦160,000\.00 in Nigeria/],
      [":price +10", /bitcoin moved \+10% to \$110,000; rate alerts checked, 1 sent/],
      [":advance 31d", /clock moved 31 days forward/],
    ];
    for (const [line, expected] of more) {
      type(bot, line);
      await bot.waitForLog(expected, { timeoutMs: 20_000 });
    }
    expect(bot.lines.some((line) => /Good rate in Nigeria/.test(line.raw))).toBe(true);
    type(bot, ":quit");
    expect(await bot.exited).toMatchObject({ code: 0 });
  }, 90_000);

  it(":pay pays a naira-funded payout by bank transfer, the exact total, to completion", async () => {
    const bot = await startLocalChat();
    const steps: Array<[string, RegExp]> = [
      ["/start", /\[1\] 💸 Send money/],
      ["1", /\[2\] 🇰🇪 Kenya/],
      ["2", /How should the money arrive/],
      ["1", /phone number/],
      ["0790 000 000", /Which wallet/],
      ["1", /name of the person/],
      ["Jane Wanjiku", /\[2\] 🏦 Naira bank transfer/],
      ["2", /How will you pay\? 🏦 Naira bank transfer/],
      ["1500", /Transfer exactly: ₦[\d,]+\.\d\d/],
      ["1", /Waiting for your transfer/],
      [":pay", /Sandbox: paid order/],
    ];
    const shown = (pattern: RegExp) => bot.lines.filter((line) => pattern.test(line.raw)).length;
    for (const [line, expected] of steps) {
      const before = shown(expected);
      type(bot, line);
      await bot.waitForLog((logged) => expected.test(logged.raw) && shown(expected) > before, {
        timeoutMs: 30_000,
      });
    }
    await bot.waitForLog(/Your naira arrived for order/, { timeoutMs: 30_000 });
    await bot.waitForLog(/🎉 KSh 1,500\.00 delivered to M-Pesa ••0000/, { timeoutMs: 30_000 });
    // docs/local-mode-transcript.md shows this very session: its buttons and its fixed lines, in this order (the
    // account, the code, the order number and the times are fresh on every run).
    const fixed = (line: string) =>
      /^\[\d\] |How will you pay\?|Transfer exactly|Recipient gets|Your rate|Waiting for your transfer|Naira received|Completed$|was delivered to/.test(
        line,
      );
    const transcript = readFileSync("docs/local-mode-transcript.md", "utf8");
    const section = transcript.slice(transcript.indexOf("## A send to Kenya paid in naira"));
    const from = (lines: string[]) => lines.slice(lines.findIndex((line) => /Where does it go\?/.test(line)));
    const documented = from(section.split("\n").map((line) => line.trim())).filter(fixed);
    const live = from(bot.lines.map((line) => line.raw.trim())).filter(fixed);
    expect(documented.length).toBeGreaterThan(20);
    expect(live.slice(0, documented.length)).toEqual(documented);
    type(bot, ":quit");
    expect(await bot.exited).toMatchObject({ code: 0 });
  }, 90_000);
});
