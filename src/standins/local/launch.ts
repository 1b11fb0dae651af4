import { sign } from "@telegram-apps/init-data-node";
import type { App } from "#src/app.js";
import type { Sandbox } from "#src/standins/sandbox/index.js";
import { startTelegramEmulator, type TelegramEmulator } from "./telegram-emulator/index.ts";
import { startTerminalChat, type TerminalChat } from "./terminal-chat.ts";
import { parseSats, walletAddress, walletInvoice } from "./wallet.ts";

/** The local person chatting in the terminal. */
const LOCAL_USER = {
  id: 100_001,
  first_name: "You",
  username: "local_user",
  language_code: "en",
} as const;

export async function startLocalTelegram(): Promise<TelegramEmulator> {
  return startTelegramEmulator({
    bot: { first_name: "Payout Assistant (local)", username: "payout_assistant_local_bot" },
  });
}

const LOCAL_HELP = [
  "  :pay         pay your latest invoice or bank transfer in the sandbox",
  "  :mine [n]    mine n blocks in the sandbox (on-chain confirmations)",
  "  :advance <minutes>   move the sandbox clock forward (expire a quote); 2h or 31d also work (a repeat send falls due)",
  "  :invoice <sats>      make a Lightning invoice to paste into the chat (e.g. for a refund)",
  "  :address     make a signet bitcoin address to paste into /buy",
  "  :price <±percent>    move the bitcoin price (e.g. :price +5), then check rate alerts at once",
  "  :miniapp     print the merchant Mini App's local address, signed in as you for an hour (merchants only)",
  "To see a payout fail after you pay (and get your sats back): send to an account or phone number",
  "ending in 999, e.g. GTBank 0123456999.",
];

/**
 * Make the terminal the user's Telegram chat. Sandbox-only commands (:pay, :mine, :advance, :invoice) stand in for
 * the world outside: a Lightning wallet paying or issuing an invoice, a bank transfer, miners.
 */
export function attachTerminal(input: {
  app: App;
  emulator: TelegramEmulator;
  sandbox?: Sandbox;
  language?: string;
  onQuit: () => Promise<void>;
}): TerminalChat {
  const { app, emulator, sandbox } = input;
  const user = emulator.user({ ...LOCAL_USER, language_code: input.language ?? LOCAL_USER.language_code });
  const chat = startTerminalChat({
    emulator,
    user,
    localHelp: sandbox ? LOCAL_HELP : [],
    onQuit: input.onQuit,
    onLocalCommand: async (name, args, terminal) => {
      if (name === "miniapp") {
        terminal.print(`Mini App (open in a browser): ${miniAppLocalUrl(app, emulator, user.id)}`);
        return true;
      }
      if (!sandbox) return false;
      // Own names only: `:toString` is no command.
      const command = Object.hasOwn(SANDBOX_COMMANDS, name) ? SANDBOX_COMMANDS[name] : undefined;
      if (!command) return false;
      try {
        await command({ app, sandbox, terminal }, args);
      } catch (error) {
        terminal.print(`Sandbox: ${(error as Error).message}`);
      }
      return true;
    },
  });
  chat.print(
    "Local mode: this terminal is your Telegram chat with the bot. Type /start. (:help for local commands)",
  );
  return chat;
}

/**
 * The Mini App on this machine with init data signed by the emulator's bot token, in the URL hash as Telegram passes
 * it: a browser opens the page as the local user would in Telegram (valid for the hour Telegram's rule allows).
 */
function miniAppLocalUrl(app: App, emulator: TelegramEmulator, userId: number): string {
  const initData = sign({ user: { ...LOCAL_USER, id: userId } } as never, emulator.token, new Date());
  return `${app.httpUrl ?? ""}/miniapp/#tgWebAppData=${encodeURIComponent(initData)}&tgWebAppVersion=8.0`;
}

interface CommandContext {
  app: App;
  sandbox: Sandbox;
  terminal: TerminalChat;
}

/** The sandbox-only commands, by name (without the colon). */
const SANDBOX_COMMANDS: Partial<Record<string, (context: CommandContext, args: string[]) => Promise<void>>> =
  {
    pay: payLatest,
    async mine({ app, sandbox, terminal }, args) {
      const count = Math.max(1, Number(args[0] ?? "1") || 1);
      sandbox.mineBlocks(count);
      terminal.print(`Sandbox: mined ${count} block(s).`);
      // A real chain has no hook into the bot: production polls pending withdrawals every few seconds. Here the
      // block is ours, so look at once (the card shows the new count right away).
      await app.events.recheckPendingOnchain();
    },
    async advance({ sandbox, terminal }, args) {
      const step = advanceStep(args[0] ?? "");
      if (!step) {
        terminal.print("Usage: :advance <minutes>, or 2h, 31d");
        return;
      }
      sandbox.advanceClock(step.ms);
      terminal.print(`Sandbox: clock moved ${step.said} forward.`);
    },
    async address({ terminal }) {
      terminal.print(`Wallet: your signet address (paste it into /buy):\n${walletAddress()}`);
    },
    price: movePrice,
    async invoice({ sandbox, terminal }, args) {
      const sats = parseSats(args[0]);
      if (sats === undefined) {
        terminal.print("Usage: :invoice <sats>, e.g. :invoice 6754");
        return;
      }
      // On a line of its own, so it copies cleanly.
      terminal.print(
        `Wallet: invoice for ${sats.toLocaleString("en-US")} sats (paste it into the chat):\n${walletInvoice(sats, sandbox.now())}`,
      );
    },
  };

/** :pay: the sandbox pays the local user's latest order (its invoice, or the bank transfer of naira it awaits). */
async function payLatest({ app, terminal }: CommandContext): Promise<void> {
  const { orders } = await app.store.orders.listForUser(LOCAL_USER.id, 0, 1);
  const order = orders[0];
  if (!order) terminal.print("No order yet: start one with /send or /buy.");
  // A naira-funded payout is paid like a buy: the bank transfer of its exact total.
  else if (order.kind === "payout" && order.pay.currency !== "NGNKOBO")
    await app.api.simulatePayIn({ quoteId: order.quoteId, currency: "BTC" });
  else await app.api.simulatePayIn({ quoteId: order.quoteId, currency: "NGN", amount: order.pay.amount });
  if (order) terminal.print(`Sandbox: paid order ${order.orderId}.`);
}

/** :price ±percent: the bitcoin price moves, and the rate alerts are checked at once. */
async function movePrice({ app, sandbox, terminal }: CommandContext, args: string[]): Promise<void> {
  const percent = Number((args[0] ?? "").replace(/%$/, ""));
  if (!/^[+-]?\d+(\.\d+)?%?$/.test(args[0] ?? "") || percent <= -100 || percent === 0) {
    terminal.print("Usage: :price <±percent>, e.g. :price +5 or :price -3");
    return;
  }
  const before = sandbox.prices.btcUsd;
  const after = sandbox.setBtcUsd(Math.round(before * (1 + percent / 100))).btcUsd;
  const sent = await app.job("rate-alerts").run();
  terminal.print(
    `Sandbox: bitcoin moved ${percent > 0 ? "+" : ""}${percent}% to $${after.toLocaleString("en-US")}; rate alerts checked, ${sent} sent.`,
  );
}

/** ":advance 6" is minutes; "2h" and "31d" are hours and days (a weekly or monthly repeat send in one step). */
function advanceStep(arg: string): { ms: number; said: string } | undefined {
  const match = /^(\d+(?:\.\d+)?)([mhd]?)$/.exec(arg.trim());
  const amount = Number(match?.[1]);
  if (!match || !(amount > 0)) return undefined;
  const unit = ({ "": "m", m: "m", h: "h", d: "d" } as const)[match[2] as "" | "m" | "h" | "d"];
  const minutes = { m: 1, h: 60, d: 24 * 60 }[unit];
  const word = { m: "minute", h: "hour", d: "day" }[unit];
  return { ms: Math.round(amount * minutes * 60_000), said: `${amount} ${word}${amount === 1 ? "" : "s"}` };
}
