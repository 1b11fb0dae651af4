import { clearLine, createInterface, cursorTo, type Interface } from "node:readline";
import type { Message } from "grammy/types";
import type { TelegramEmulator } from "./telegram-emulator/index.ts";
import type { ChatEvent } from "./telegram-emulator/types.ts";
import type { UserDriver } from "./telegram-emulator/user-driver.ts";
import { dim, renderInlineKeyboard, renderMessageBody, renderReplyKeyboard } from "./terminal-render.ts";

export interface TerminalChat {
  /** Print a line above the prompt (the launcher uses it for local-mode notices). */
  print(text: string): void;
  /** Stop reading input and printing events (does not call onQuit). */
  close(): void;
  /** Settles when the chat closes (quit, end of input or close()). */
  readonly closed: Promise<void>;
  /** Resolves when every line typed so far has been handled (tests pipe input and wait on this). */
  settled(): Promise<void>;
}

interface TerminalChatOptions {
  emulator: TelegramEmulator;
  user: UserDriver;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** ANSI styles and coloured pictures (default: when output is a TTY). */
  color?: boolean;
  /** Columns for pictures (default: the terminal's width, else 80). */
  width?: number;
  /**
   * Local-only commands typed as `:name args…` that are not built in (:help, :quit, :press, :say, :buttons).
   * Return true when handled (the launcher adds `:pay`, for example).
   */
  onLocalCommand?: (name: string, args: string[], chat: TerminalChat) => boolean | Promise<boolean>;
  /** Extra lines for :help, describing the commands onLocalCommand handles. */
  localHelp?: string[];
  /** :quit, Ctrl+C or end of input: shut the process down cleanly. */
  onQuit?: () => void | Promise<void>;
  prompt?: string;
}

const HELP = [
  "Type a message and press Enter to send it; /commands go to the bot as commands.",
  "Type the number of a button to press it (the latest message with buttons);",
  "type 23.2 to press button 2 of an older message, the one marked #23.",
  "  :press <n>   press button n (or m.n)  :say <text>  send text literally (e.g. a number)",
  "  :buttons     show the buttons again",
  "  :help        this help             :quit        leave (also Ctrl+C)",
];

/** What the chat's parts share: where it writes, and which message's buttons the numbers press. */
interface ChatState {
  readonly output: NodeJS.WritableStream;
  readonly rl: Interface;
  readonly tty: boolean;
  readonly color: boolean;
  readonly width: number;
  closed: boolean;
  /** The message whose inline buttons the numbers press… */
  activeKeyboard: number | undefined;
  /** …unless a reply keyboard was shown more recently. */
  replyKeyboardActive: boolean;
}

type Write = (lines: string[]) => void;

/** The local mode's face: the bot's messages in the terminal, the user's lines back to the bot. */
export function startTerminalChat(options: TerminalChatOptions): TerminalChat {
  const { emulator, user } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const tty = (output as { isTTY?: boolean }).isTTY === true && (input as { isTTY?: boolean }).isTTY === true;
  const botName = emulator.bot.first_name;
  const state: ChatState = {
    output,
    rl: createInterface({ input, output, terminal: tty, prompt: options.prompt ?? "› " }),
    tty,
    color: options.color ?? (output as { isTTY?: boolean }).isTTY === true,
    width: options.width ?? (output as { columns?: number }).columns ?? 80,
    closed: false,
    activeKeyboard: undefined,
    replyKeyboardActive: false,
  };
  const { rl, color } = state;
  let quitting = false;
  let work = Promise.resolve();
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const write = writer(state);
  const unsubscribe = user.onEvent(eventPrinter(state, emulator, user, write));
  const quit = async () => {
    if (quitting) return;
    quitting = true;
    chat.close();
    await options.onQuit?.();
  };
  const handleLine = lineHandler(state, options, write, quit, () => chat);

  rl.on("line", (line) => {
    // Lines are handled one after another, in the order typed.
    work = work.then(() => handleLine(line)).catch((error: unknown) => write([`⚠ ${String(error)}`]));
  });
  rl.on("SIGINT", () => void quit());
  rl.on("close", () => {
    // End of input (a pipe closed or Ctrl+D) is a quit, after the lines already read.
    if (!state.closed) void work.then(quit);
  });

  const chat: TerminalChat = {
    print: (text) => write(text.split("\n")),
    close() {
      if (state.closed) return;
      state.closed = true;
      unsubscribe();
      rl.close();
      resolveClosed();
    },
    closed: closedPromise,
    settled: () => work,
  };
  write([dim(`Chatting with ${botName} as ${user.user.first_name}. :help for help.`, color)]);
  if (tty) rl.prompt();
  return chat;
}

/** Lines printed above the prompt (the prompt is drawn again after them on a terminal). */
function writer(state: ChatState): Write {
  const { output, rl, tty } = state;
  return (lines) => {
    if (state.closed) return;
    if (tty) {
      clearLine(output, 0);
      cursorTo(output, 0);
    }
    for (const line of lines) output.write(`${line}\n`);
    if (tty) rl.prompt(true);
  };
}

/** The bot's side of the chat: its messages, edits, deletions and toasts, printed as they happen. */
function eventPrinter(
  state: ChatState,
  emulator: TelegramEmulator,
  user: UserDriver,
  write: Write,
): (event: ChatEvent) => void {
  const { color, width } = state;
  const botName = emulator.bot.first_name;
  const fileBytes = (fileId: string) => {
    try {
      return emulator.fileBytes(fileId);
    } catch {
      return undefined;
    }
  };

  const renderMessage = (message: Message, header: string) => {
    const keyboard = renderInlineKeyboard(message.reply_markup, color);
    const lines = [
      // A message with buttons carries its number, so its buttons stay reachable once newer ones arrive.
      keyboard.length > 0 && !header.includes(`#${message.message_id}`)
        ? `${header} ${dim(`#${message.message_id}`, color)}`
        : header,
      ...renderMessageBody(message, { color, width }, fileBytes).map((line) => `  ${line}`),
    ];
    lines.push(...keyboard.map((line) => `  ${line}`));
    if (keyboard.length > 0) {
      state.activeKeyboard = message.message_id;
      state.replyKeyboardActive = false;
    } else if (state.activeKeyboard === message.message_id) state.activeKeyboard = undefined;
    return lines;
  };

  return (event) => {
    switch (event.kind) {
      case "message": {
        const lines = renderMessage(
          event.message,
          color ? `\x1b[1;32m🤖 ${botName}\x1b[0m` : `🤖 ${botName}`,
        );
        if (user.replyKeyboard() && event.message.reply_markup === undefined) {
          lines.push(...renderReplyKeyboard(user.replyKeyboard(), color).map((line) => `  ${line}`));
          state.replyKeyboardActive = true;
        }
        return write(lines);
      }
      case "edit":
        return write(
          renderMessage(event.message, dim(`✎ (edited) message #${event.message.message_id}`, color)),
        );
      case "delete":
        if (state.activeKeyboard === event.messageId) state.activeKeyboard = undefined;
        return write([dim(`🗑 (message ${event.messageId} deleted)`, color)]);
      case "callback_answer":
        if (event.answer.text)
          write([event.answer.showAlert ? `⚠ ${event.answer.text}` : `💬 ${event.answer.text}`]);
        return;
      default:
        return;
    }
  };
}

/** A button pressed by its number: `index` on the message `messageId` (default: the latest with buttons). */
function presser(
  state: ChatState,
  user: UserDriver,
  write: Write,
): (index: number, messageId?: number) => Promise<void> {
  return async (index, messageId = state.activeKeyboard) => {
    const message = messageId === undefined ? undefined : user.message(messageId);
    const button = message?.reply_markup?.inline_keyboard.flat()[index - 1];
    if (!message || !button) {
      return write([
        `⚠ there is no button ${messageId === state.activeKeyboard ? index : `${messageId}.${index}`}`,
      ]);
    }
    if ("url" in button && button.url) return write([`↗ ${button.text}: ${button.url}`]);
    if ("copy_text" in button && button.copy_text) return write([`📋 copy: ${button.copy_text.text}`]);
    try {
      await user.press(message, { index: index - 1 });
    } catch (error) {
      write([`⚠ ${(error as Error).message}`]);
    }
  };
}

/** The user's side: a typed line is a local `:command`, a button's number, or text for the bot. */
function lineHandler(
  state: ChatState,
  options: TerminalChatOptions,
  write: Write,
  quit: () => Promise<void>,
  chat: () => TerminalChat,
): (raw: string) => Promise<void> {
  const { user } = options;
  const press = presser(state, user, write);

  const localCommand = async (line: string) => {
    const [name = "", ...args] = line.slice(1).trim().split(/\s+/);
    switch (name) {
      case "help":
        return write([...HELP, ...(options.localHelp ?? []).map((help) => `  ${help}`)]);
      case "quit":
      case "q":
      case "exit":
        return quit();
      case "press": {
        const [first = "", second] = (args[0] ?? "").split(".");
        return second === undefined ? press(Number(first)) : press(Number(second), Number(first));
      }
      case "say":
        return sendText(line.slice(line.indexOf("say") + 3).trim());
      case "buttons": {
        const message = state.activeKeyboard === undefined ? undefined : user.message(state.activeKeyboard);
        return write(message ? renderInlineKeyboard(message.reply_markup, state.color) : ["(no buttons)"]);
      }
    }
    const handled = (await options.onLocalCommand?.(name, args, chat())) ?? false;
    if (!handled) write([`⚠ unknown command :${name} — :help lists them`]);
  };

  const sendText = async (text: string) => {
    if (text === "") return;
    try {
      await user.send(text);
    } catch (error) {
      write([`⚠ ${(error as Error).message}`]);
    }
  };

  return async (raw) => {
    const line = raw.trim();
    if (line === "") return;
    if (line.startsWith(":")) return localCommand(line);
    const older = /^(\d{1,9})\.(\d{1,2})$/.exec(line);
    if (older) return press(Number(older[2]), Number(older[1]));
    if (/^\d{1,2}$/.test(line)) {
      const number = Number(line);
      const reply = state.replyKeyboardActive ? user.replyKeyboard()?.flat() : undefined;
      if (reply && number >= 1 && number <= reply.length) return sendText(reply[number - 1]!.text);
      const inline =
        state.activeKeyboard === undefined ? undefined : user.message(state.activeKeyboard)?.reply_markup;
      const count = inline?.inline_keyboard.flat().length ?? 0;
      if (number >= 1 && number <= count) return press(number);
    }
    return sendText(line);
  };
}
