import { decode } from "light-bolt11-decoder";
import { afterEach, describe, expect, it } from "vitest";
import { type SpawnedBot, spawnBot, stopAllBots } from "../support/spawn-bot.ts";

/**
 * Local mode's stand-ins for a wallet and for a failing bank: `:invoice <sats>` prints a signet invoice the embedded
 * sandbox pays, and an account number ending in 999 (as :help says) makes the payout fail after the payment, so a
 * person at the terminal can see the whole refund. A real `npm start` process, typed into over its stdin.
 */
describe("local mode: a failed payout and its refund, typed at the terminal", () => {
  afterEach(async () => {
    await stopAllBots();
  });

  const type = (bot: SpawnedBot, line: string) => bot.child.stdin?.write(`${line}\n`);
  /** Waits for `pattern` among the lines printed after `from` (an index into bot.lines). */
  const printedAfter = async (bot: SpawnedBot, from: number, pattern: RegExp) =>
    bot.waitForLog((line) => bot.lines.indexOf(line) >= from && pattern.test(line.raw), {
      timeoutMs: 30_000,
    });
  const invoiceAfter = async (bot: SpawnedBot, from: number) =>
    (await printedAfter(bot, from, /^lntbs\w+$/)).raw;

  it(":invoice makes a decodable signet invoice of that amount, and a 999 account's payout is refunded to one", async () => {
    const bot = spawnBot({
      inheritEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdin: "pipe",
    });
    await bot.waitForLog("this terminal is your Telegram chat", { timeoutMs: 60_000 });

    type(bot, ":help");
    await bot.waitForLog(/:invoice <sats>/);
    await bot.waitForLog(/ending in 999, e\.g\. GTBank 0123456999/);

    let from = bot.lines.length;
    type(bot, ":invoice twelve");
    await printedAfter(bot, from, /Usage: :invoice <sats>/);

    from = bot.lines.length;
    type(bot, ":invoice 1,234");
    await printedAfter(bot, from, /Wallet: invoice for 1,234 sats/);
    const decoded = decode(await invoiceAfter(bot, from));
    const section = (name: string) =>
      decoded.sections.find((entry) => entry.name === name) as { value: unknown };
    expect(section("amount").value).toBe("1234000"); // millisatoshis
    expect(section("coin_network").value).toMatchObject({ bech32: "tbs" });
    const timestamp = section("timestamp").value as number;
    expect(timestamp + decoded.expiry!).toBeGreaterThan(Date.now() / 1000 + 30 * 60);

    // A payout to GTBank 0123456999: paid, then failed by the sandbox, then "Get my sats back".
    const steps: Array<[string, RegExp]> = [
      ["/send", /\[1\] 🇳🇬 Nigeria · Bank/],
      ["1", /Which bank\?/],
      ["1", /Send the 10-digit account number at GTBANK PLC/],
      ["0123456999", /Is this the person you want to pay\?/],
      ["1", /How much should they receive, in naira\?/],
      ["5000", /Recipient gets: ₦5,000\.00/],
      ["1", /\[1\] 🧪 Simulate payment/],
      [":pay", /Sandbox: paid order/],
    ];
    for (const [line, expected] of steps) {
      from = bot.lines.length;
      type(bot, line);
      await printedAfter(bot, from, expected);
    }
    await printedAfter(bot, from, /\[1\] 💸 Get my sats back/);
    from = bot.lines.length;
    type(bot, "1");
    const ask = await printedAfter(bot, from, /a Lightning invoice for exactly ([\d,]+) sats/);
    const amount = /exactly ([\d,]+) sats/.exec(ask.raw)![1]!;

    from = bot.lines.length;
    type(bot, `:invoice ${amount}`);
    const invoice = await invoiceAfter(bot, from);
    expect(decode(invoice).sections.find((entry) => entry.name === "amount")).toMatchObject({
      value: `${Number(amount.replace(/,/g, "")) * 1000}`,
    });

    from = bot.lines.length;
    type(bot, invoice);
    await printedAfter(bot, from, /✅ Refunded\. The sats are in your wallet\./);
    await printedAfter(bot, from, new RegExp(`Amount refunded: ${amount} sats`));

    type(bot, ":quit");
    expect(await bot.exited).toMatchObject({ code: 0 });
  }, 180_000);
});
