import { clearLine, createInterface, cursorTo } from "node:readline";
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

/** The local mode's face: the bot's messages in the terminal, the user's lines back to the bot. */
export function startTerminalChat(options: TerminalChatOptions): TerminalChat {
  const { emulator, user } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const tty = (output as { isTTY?: boolean }).isTTY === true && (input as { isTTY?: boolean }).isTTY === true;
  const color = options.color ?? (output as { isTTY?: boolean }).isTTY === true;
  const width = options.width ?? (output as { columns?: number }).columns ?? 80;
  const botName = emulator.bot.first_name;
  const rl = createInterface({ input, output, terminal: tty, prompt: options.prompt ?? "› " });
  /** The message whose inline buttons the numbers press… */
  let activeKeyboard: number | undefined;
  /** …unless a reply keyboard was shown more recently. */
  let replyKeyboardActive = false;
  let closed = false;
  let quitting = false;
  let work = Promise.resolve();
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const write = (lines: string[]) => {
    if (closed) return;
    if (tty) {
      clearLine(output, 0);
      cursorTo(output, 0);
    }
    for (const line of lines) output.write(`${line}\n`);
    if (tty) rl.prompt(true);
  };

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
      activeKeyboard = message.message_id;
      replyKeyboardActive = false;
    } else if (activeKeyboard === message.message_id) activeKeyboard = undefined;
    return lines;
  };

  const onEvent = (event: ChatEvent) => {
    switch (event.kind) {
      case "message": {
        const lines = renderMessage(
          event.message,
          color ? `\x1b[1;32m🤖 ${botName}\x1b[0m` : `🤖 ${botName}`,
        );
        if (user.replyKeyboard() && event.message.reply_markup === undefined) {
          lines.push(...renderReplyKeyboard(user.replyKeyboard(), color).map((line) => `  ${line}`));
          replyKeyboardActive = true;
        }
        return write(lines);
      }
      case "edit":
        return write(
          renderMessage(event.message, dim(`✎ (edited) message #${event.message.message_id}`, color)),
        );
      case "delete":
        if (activeKeyboard === event.messageId) activeKeyboard = undefined;
        return write([dim(`🗑 (message ${event.messageId} deleted)`, color)]);
      case "callback_answer":
        if (event.answer.text)
          write([event.answer.showAlert ? `⚠ ${event.answer.text}` : `💬 ${event.answer.text}`]);
        return;
      default:
        return;
    }
  };
  const unsubscribe = user.onEvent(onEvent);

  const press = async (index: number, messageId = activeKeyboard) => {
    const message = messageId === undefined ? undefined : user.message(messageId);
    const button = message?.reply_markup?.inline_keyboard.flat()[index - 1];
    if (!message || !button) {
      return write([
        `⚠ there is no button ${messageId === activeKeyboard ? index : `${messageId}.${index}`}`,
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

  const quit = async () => {
    if (quitting) return;
    quitting = true;
    chat.close();
    await options.onQuit?.();
  };

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
        const message = activeKeyboard === undefined ? undefined : user.message(activeKeyboard);
        return write(message ? renderInlineKeyboard(message.reply_markup, color) : ["(no buttons)"]);
      }
    }
    const handled = (await options.onLocalCommand?.(name, args, chat)) ?? false;
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

  const handleLine = async (raw: string) => {
    const line = raw.trim();
    if (line === "") return;
    if (line.startsWith(":")) return localCommand(line);
    const older = /^(\d{1,9})\.(\d{1,2})$/.exec(line);
    if (older) return press(Number(older[2]), Number(older[1]));
    if (/^\d{1,2}$/.test(line)) {
      const number = Number(line);
      const reply = replyKeyboardActive ? user.replyKeyboard()?.flat() : undefined;
      if (reply && number >= 1 && number <= reply.length) return sendText(reply[number - 1]!.text);
      const inline = activeKeyboard === undefined ? undefined : user.message(activeKeyboard)?.reply_markup;
      const count = inline?.inline_keyboard.flat().length ?? 0;
      if (number >= 1 && number <= count) return press(number);
    }
    return sendText(line);
  };

  rl.on("line", (line) => {
    // Lines are handled one after another, in the order typed.
    work = work.then(() => handleLine(line)).catch((error: unknown) => write([`⚠ ${String(error)}`]));
  });
  rl.on("SIGINT", () => void quit());
  rl.on("close", () => {
    // End of input (a pipe closed or Ctrl+D) is a quit, after the lines already read.
    if (!closed) void work.then(quit);
  });

  const chat: TerminalChat = {
    print: (text) => write(text.split("\n")),
    close() {
      if (closed) return;
      closed = true;
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
