import type { App } from "#src/app.js";
import type { Sandbox } from "#src/standins/sandbox/index.js";
import { startTelegramEmulator, type TelegramEmulator } from "./telegram-emulator/index.ts";
import { startTerminalChat, type TerminalChat } from "./terminal-chat.ts";
import { parseSats, walletInvoice } from "./wallet.ts";

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
      if (!sandbox) return false;
      try {
        if (name === "pay") {
          const { orders } = await app.store.orders.listForUser(LOCAL_USER.id, 0, 1);
          const order = orders[0];
          if (!order) terminal.print("No order yet: start one with /send or /buy.");
          else if (order.kind === "payout")
            await app.api.simulatePayIn({ quoteId: order.quoteId, currency: "BTC" });
          else
            await app.api.simulatePayIn({
              quoteId: order.quoteId,
              currency: "NGN",
              amount: order.pay.amount,
            });
          if (order) terminal.print(`Sandbox: paid order ${order.orderId}.`);
          return true;
        }
        if (name === "mine") {
          const count = Math.max(1, Number(args[0] ?? "1") || 1);
          sandbox.mineBlocks(count);
          terminal.print(`Sandbox: mined ${count} block(s).`);
          // A real chain has no hook into the bot: production polls pending withdrawals every few seconds. Here the
          // block is ours, so look at once (the card shows the new count right away).
          await app.events.recheckPendingOnchain();
          return true;
        }
        if (name === "advance") {
          const minutes = advanceMinutes(args[0] ?? "");
          if (!Number.isFinite(minutes) || minutes <= 0) {
            terminal.print("Usage: :advance <minutes>");
            return true;
          }
          sandbox.advanceClock(Math.round(minutes * 60_000));
          terminal.print(`Sandbox: clock moved ${minutes} minute(s) forward.`);
          return true;
        }
        if (name === "invoice") {
          const sats = parseSats(args[0]);
          if (sats === undefined) {
            terminal.print("Usage: :invoice <sats>, e.g. :invoice 6754");
            return true;
          }
          // On a line of its own, so it copies cleanly.
          terminal.print(
            `Wallet: invoice for ${sats.toLocaleString("en-US")} sats (paste it into the chat):\n${walletInvoice(sats, sandbox.now())}`,
          );
          return true;
        }
      } catch (error) {
        terminal.print(`Sandbox: ${(error as Error).message}`);
        return true;
      }
      return false;
    },
  });
  chat.print(
    "Local mode: this terminal is your Telegram chat with the bot. Type /start. (:help for local commands)",
  );
  return chat;
}

/** ":advance 6" is minutes; "2h" and "31d" are hours and days (a weekly or monthly repeat send in one step). */
function advanceMinutes(arg: string): number {
  const match = /^(\d+(?:\.\d+)?)([mhd]?)$/.exec(arg.trim());
  if (!match) return Number.NaN;
  const unit = { "": 1, m: 1, h: 60, d: 24 * 60 }[match[2] as "" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}
