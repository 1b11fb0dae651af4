import type { ApiClientOptions } from "grammy";
import type { InlineKeyboardButton, InlineKeyboardMarkup, Message, UserFromGetMe } from "grammy/types";

/**
 * Telegram answered inside the process, so benchmarks measure the bot and not the network: a `fetch` for grammY's
 * API client that never opens a socket and returns Telegram-shaped results (per-chat message ids, the reply_markup
 * echoed back, "message is not modified" for identical edits). It remembers the last few messages of each chat,
 * with their buttons, so simulated users can find what to press. The outside world is faked here; none of our
 * code is.
 *
 * Why `fetch` and not an API transformer: inside a conversation, @grammyjs/conversations installs its replay
 * interceptor first on every rebuilt context, so every transformer we add sits OUTSIDE it. A transformer that
 * answers without calling `prev` would bypass the replay log and "send" again on every replay (new message ids,
 * stale screens). `fetch` is below everything, exactly where the real network is; grammY's JSON and multipart
 * serialization of each call is therefore measured too, as in production.
 */
export interface ShownMessage {
  messageId: number;
  text: string;
  markup: InlineKeyboardMarkup | undefined;
  photo: boolean;
}

interface ChatLog {
  /** Private chats share one message-id sequence between the user and the bot, like Telegram. */
  nextId: number;
  messages: Map<number, ShownMessage>;
  /** Messages sent or edited since the simulated user last looked. */
  touched: ShownMessage[];
  lastToast: string | undefined;
}

const KEEP_MESSAGES = 8;
const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

export const BENCH_BOT: UserFromGetMe = {
  id: 7_000_000_001,
  is_bot: true,
  first_name: "Payout Assistant",
  username: "payout_assistant_bot",
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
} as UserFromGetMe;

/** Anything that still tried the network would fail at once here (port 9, discard). */
export const NOWHERE = "http://127.0.0.1:9";

export const BENCH_TOKEN = `${BENCH_BOT.id}:AAbenchBENCHbench0123456789abcdefXYZ`;

type Payload = Record<string, unknown>;

function markupOf(payload: Payload): InlineKeyboardMarkup | undefined {
  const markup = payload.reply_markup as { inline_keyboard?: InlineKeyboardButton[][] } | undefined;
  return markup?.inline_keyboard ? { inline_keyboard: markup.inline_keyboard } : undefined;
}

const sameMarkup = (a: InlineKeyboardMarkup | undefined, b: InlineKeyboardMarkup | undefined) =>
  JSON.stringify(a?.inline_keyboard ?? []) === JSON.stringify(b?.inline_keyboard ?? []);

export class LocalTelegram {
  readonly calls = new Map<string, number>();
  private readonly chats = new Map<number, ChatLog>();
  private unixNow = Math.floor(Date.now() / 1000);
  /** Told of every call as it arrives, with the chat it is for (the latency bench's clock of "the user sees it"). */
  onCall: ((method: string, chatId: number) => void) | undefined;

  /** grammY client `fetch`: `${apiRoot}/bot${token}/${method}` with a JSON or multipart body. */
  readonly fetch = (async (url: string | URL, init?: { body?: unknown }) => {
    const method = String(url).slice(String(url).lastIndexOf("/") + 1);
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    const payload = await readBody(init?.body);
    if (this.onCall) {
      const query = typeof payload.callback_query_id === "string" ? payload.callback_query_id : undefined;
      this.onCall(method, Number(query ? query.split(":")[0] : payload.chat_id));
    }
    const answer = this.answer(method, payload);
    return { ok: true, status: 200, json: async () => answer };
  }) as unknown as NonNullable<ApiClientOptions["fetch"]>;

  /** Client options for a grammY Bot/Api that talks to this local Telegram. */
  clientOptions(): ApiClientOptions {
    return { apiRoot: NOWHERE, fetch: this.fetch };
  }

  /**
   * Point a Bot built by createBot at this local Telegram: grammY builds a new Api per update (and conversations
   * one per replayed context) from the Bot's client options object, so setting its `fetch` reaches them all.
   */
  attach(bot: { api: { options?: ApiClientOptions } }): void {
    const options = bot.api.options;
    if (!options) throw new Error("the Bot has no client options object to attach the local Telegram to");
    options.fetch = this.fetch;
  }

  chat(chatId: number): ChatLog {
    let log = this.chats.get(chatId);
    if (!log) {
      log = { nextId: 1, messages: new Map(), touched: [], lastToast: undefined };
      this.chats.set(chatId, log);
    }
    return log;
  }

  /** The next message id in a chat (for a message the simulated user sends). */
  takeMessageId(chatId: number): number {
    const log = this.chat(chatId);
    const id = log.nextId;
    log.nextId += 1;
    return id;
  }

  /** What the bot sent or edited in the chat since the last call (the user "looks at the screen"). */
  takeTouched(chatId: number): ShownMessage[] {
    const log = this.chat(chatId);
    const touched = log.touched;
    log.touched = [];
    return touched;
  }

  /** The newest message in the chat with a button whose callback_data matches. */
  findButton(chatId: number, data: RegExp): { message: ShownMessage; data: string } | undefined {
    const messages = [...this.chat(chatId).messages.values()].reverse();
    for (const message of messages) {
      for (const row of message.markup?.inline_keyboard ?? []) {
        for (const button of row) {
          const value = (button as { callback_data?: string }).callback_data;
          if (value !== undefined && data.test(value)) return { message, data: value };
        }
      }
    }
    return undefined;
  }

  lastMessage(chatId: number): ShownMessage | undefined {
    return [...this.chat(chatId).messages.values()].at(-1);
  }

  lastToast(chatId: number): string | undefined {
    return this.chat(chatId).lastToast;
  }

  /** Drop a chat's state (memory bench: the harness should not hold what the bot does not). */
  forget(chatId: number): void {
    this.chats.delete(chatId);
  }

  totalCalls(): number {
    let total = 0;
    for (const count of this.calls.values()) total += count;
    return total;
  }

  private answer(method: string, payload: Payload): { ok: true; result: unknown } | Failure {
    const chatId = Number(payload.chat_id);
    switch (method) {
      case "sendMessage":
        return ok(this.send(chatId, String(payload.text ?? ""), markupOf(payload), false));
      case "sendPhoto":
      case "sendDocument":
        return ok(this.send(chatId, String(payload.caption ?? ""), markupOf(payload), true));
      case "editMessageText":
      case "editMessageCaption":
      case "editMessageReplyMarkup":
        return this.edit(method, chatId, payload);
      case "deleteMessage":
        this.chat(chatId).messages.delete(Number(payload.message_id));
        return ok(true);
      case "answerCallbackQuery": {
        const owner = Number(String(payload.callback_query_id ?? "").split(":")[0]);
        if (Number.isFinite(owner)) this.chat(owner).lastToast = payload.text as string | undefined;
        return ok(true);
      }
      case "getMe":
        return ok(BENCH_BOT);
      default:
        return ok(true);
    }
  }

  private send(chatId: number, text: string, markup: InlineKeyboardMarkup | undefined, photo: boolean) {
    const log = this.chat(chatId);
    const shown: ShownMessage = { messageId: log.nextId, text, markup, photo };
    log.nextId += 1;
    this.remember(log, shown);
    return this.telegramMessage(chatId, shown);
  }

  private edit(method: string, chatId: number, payload: Payload): { ok: true; result: unknown } | Failure {
    if (payload.inline_message_id !== undefined) return ok(true);
    const log = this.chat(chatId);
    const messageId = Number(payload.message_id);
    // A message trimmed from our short memory is treated as editable (the bot may edit old cards).
    const current = log.messages.get(messageId) ?? { messageId, text: "", markup: undefined, photo: false };
    const text =
      method === "editMessageReplyMarkup"
        ? current.text
        : String((method === "editMessageText" ? payload.text : payload.caption) ?? "");
    const markup = markupOf(payload);
    if (text === current.text && sameMarkup(markup, current.markup) && log.messages.has(messageId)) {
      return { ok: false, error_code: 400, description: NOT_MODIFIED };
    }
    const shown: ShownMessage = { messageId, text, markup, photo: current.photo };
    this.remember(log, shown);
    return ok({ ...this.telegramMessage(chatId, shown), edit_date: this.now() });
  }

  private remember(log: ChatLog, shown: ShownMessage): void {
    log.messages.delete(shown.messageId);
    log.messages.set(shown.messageId, shown);
    if (log.messages.size > KEEP_MESSAGES) {
      const oldest = log.messages.keys().next().value;
      if (oldest !== undefined) log.messages.delete(oldest);
    }
    log.touched.push(shown);
  }

  private now(): number {
    this.unixNow = Math.floor(Date.now() / 1000);
    return this.unixNow;
  }

  private telegramMessage(chatId: number, shown: ShownMessage): Message {
    const base = {
      message_id: shown.messageId,
      date: this.now(),
      chat: { id: chatId, type: "private" as const, first_name: `User ${chatId}` },
      from: BENCH_BOT,
      ...(shown.markup ? { reply_markup: shown.markup } : {}),
    };
    if (shown.photo) {
      const file = `bench-photo-${chatId}-${shown.messageId}`;
      return {
        ...base,
        caption: shown.text,
        photo: [{ file_id: file, file_unique_id: file, width: 512, height: 512, file_size: 4096 }],
      } as Message;
    }
    return { ...base, text: shown.text } as Message;
  }
}

interface Failure {
  ok: false;
  error_code: number;
  description: string;
}

const ok = (result: unknown) => ({ ok: true as const, result });

/** The payload of a call: grammY sends JSON, or multipart/form-data (a stream) when a file is uploaded. */
async function readBody(body: unknown): Promise<Payload> {
  if (body === undefined || body === null) return {};
  if (typeof body === "string") return JSON.parse(body) as Payload;
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  }
  return parseMultipart(Buffer.concat(chunks));
}

/** Text fields of a multipart body (file parts are skipped: only their bytes' production cost matters). */
function parseMultipart(buffer: Buffer): Payload {
  const text = buffer.toString("latin1");
  const boundary = text.slice(0, text.indexOf("\r\n"));
  const payload: Payload = {};
  for (const part of text.split(boundary)) {
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    const name = /name="([^"]+)"/.exec(headers)?.[1];
    if (!name || /filename=/.test(headers)) continue;
    const value = Buffer.from(part.slice(headerEnd + 4).replace(/\r\n$/, ""), "latin1").toString("utf8");
    payload[name] = /^[[{]/.test(value) ? safeJson(value) : value;
  }
  return payload;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
