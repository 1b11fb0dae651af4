import { AsyncLocalStorage } from "node:async_hooks";
import type { Transformer } from "grammy";
import type { MessageEntity } from "grammy/types";
import type { Logger } from "pino";

/**
 * Telegram's size limits, counted as Telegram counts them: UTF-16 code units of the text AFTER entity parsing
 * (tags removed, `&amp;` is one character).
 */
export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_CAPTION_LIMIT = 1024;
const TELEGRAM_TOAST_LIMIT = 200;

const ELLIPSIS = "…";
/** The entities Telegram's HTML mode understands; anything else after "&" is a literal "&". */
const ENTITY = /^&(?:#x[0-9a-fA-F]{1,6}|#\d{1,7}|lt|gt|amp|quot);/;
const TAG = /^<(\/?)([a-zA-Z][\w-]*)[^<>]*>/;

function decodedLength(entity: string): number {
  const name = entity.slice(1, -1);
  if (!name.startsWith("#")) return 1;
  const code = name.startsWith("#x")
    ? Number.parseInt(name.slice(2), 16)
    : Number.parseInt(name.slice(1), 10);
  return code > 0xffff ? 2 : 1;
}

/**
 * Cut Telegram HTML so its visible text is at most `limit` UTF-16 units, ending in "…": never inside a tag, an
 * entity or a surrogate pair, and every tag still open at the cut is closed. Input that already fits is returned
 * unchanged.
 */
export function fitHtml(html: string, limit: number): string {
  if (html.length <= limit) return html; // the visible text is never longer than the markup
  const budget = limit - ELLIPSIS.length;
  const open: string[] = [];
  let visible = 0;
  let i = 0;
  while (i < html.length) {
    const rest = html.slice(i, i + 256);
    const tag = html[i] === "<" ? TAG.exec(rest) : null;
    if (tag) {
      const name = tag[2]!.toLowerCase();
      if (tag[1]) {
        const index = open.lastIndexOf(name);
        if (index >= 0) open.splice(index, 1);
      } else open.push(name);
      i += tag[0].length;
      continue;
    }
    const entity = html[i] === "&" ? ENTITY.exec(rest) : null;
    const token = entity ? entity[0] : String.fromCodePoint(html.codePointAt(i)!);
    const width = entity ? decodedLength(token) : token.length;
    if (visible + width > budget) break;
    visible += width;
    i += token.length;
  }
  if (i >= html.length) return html;
  const closing = open
    .reverse()
    .map((name) => `</${name}>`)
    .join("");
  return `${html.slice(0, i)}${ELLIPSIS}${closing}`;
}

/** Cut plain text to `limit` UTF-16 units ending in "…", never inside a surrogate pair. */
export function fitPlain(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit - ELLIPSIS.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

/** Entities that still fall inside a text cut to `length`, clipped to it. */
function clipEntities(entities: MessageEntity[], length: number): MessageEntity[] {
  return entities
    .filter((entity) => entity.offset < length)
    .map((entity) => ({ ...entity, length: Math.min(entity.length, length - entity.offset) }));
}

type Payload = Record<string, unknown>;

/** Fit one text field of a payload (text/caption with its parse_mode or entities); true when it had to cut. */
function fitField(payload: Payload, field: "text" | "caption", limit: number): boolean {
  const value = payload[field];
  if (typeof value !== "string" || value.length <= limit) return false;
  const entitiesField = field === "text" ? "entities" : "caption_entities";
  const mode = typeof payload.parse_mode === "string" ? payload.parse_mode.toUpperCase() : undefined;
  let fitted: string;
  if (mode === "HTML") fitted = fitHtml(value, limit);
  else if (mode === undefined) {
    fitted = fitPlain(value, limit);
    const entities = payload[entitiesField];
    if (Array.isArray(entities))
      payload[entitiesField] = clipEntities(entities as MessageEntity[], fitted.length - ELLIPSIS.length);
  } else {
    // Markdown: no safe place to cut inside its syntax; send the text plain instead.
    delete payload.parse_mode;
    fitted = fitPlain(value, limit);
  }
  if (fitted === value) return false;
  payload[field] = fitted;
  return true;
}

const CAPTION_METHODS = new Set([
  "sendPhoto",
  "sendDocument",
  "sendVideo",
  "sendAnimation",
  "sendAudio",
  "sendVoice",
  "editMessageCaption",
  "copyMessage",
]);

/**
 * The last guard before Telegram: text ≤ 4096, captions ≤ 1024, toasts ≤ 200 (Telegram would reject the call and
 * the user would be left without an answer). Replies that quote user input shorten it first (quoteInput), so
 * this only fires on a bug: it logs a warning with the method and the sizes, never the text.
 */
export function boundedOutput(logger: Logger): Transformer {
  return (prev, method, payload, signal) => {
    const fields: Array<["text" | "caption", number]> = [];
    if (method === "sendMessage" || method === "editMessageText") fields.push(["text", TELEGRAM_TEXT_LIMIT]);
    else if (method === "answerCallbackQuery") fields.push(["text", TELEGRAM_TOAST_LIMIT]);
    else if (CAPTION_METHODS.has(method)) fields.push(["caption", TELEGRAM_CAPTION_LIMIT]);
    if (fields.length === 0) return prev(method, payload, signal);
    let copy: Payload | undefined;
    for (const [field, limit] of fields) {
      const value = (payload as Payload)[field];
      if (typeof value !== "string" || value.length <= limit) continue;
      copy ??= { ...(payload as Payload) };
      if (fitField(copy, field, limit))
        logger.warn(
          { method, field, length: value.length, limit },
          "outgoing Telegram text over the limit: cut",
        );
    }
    return prev(method, (copy ?? payload) as typeof payload, signal);
  };
}

/** The chat whose update is being handled (`replyingToChat`). */
const replyingTo = new AsyncLocalStorage<string>();

/**
 * Handle an update as a conversation with `chatId`: calls to that chat made while handling it are replies the user
 * is waiting for, and burstPacer paces them by the chat's own bucket only (installed first in createBot).
 */
export function replyingToChat<T>(chatId: number | undefined, handle: () => Promise<T>): Promise<T> {
  return chatId === undefined ? handle() : replyingTo.run(String(chatId), handle);
}

/**
 * Outbound pacing with a burst budget. Telegram tolerates a short burst in a chat (a card edit and a notification
 * at once) but not a sustained stream: each chat has a token bucket — `burst` messages at once, then one per
 * `intervalMs` — so a reply that follows another is not held back unless the chat really is busy. A 429 holds the
 * chat for its retry_after, so the retry that follows (auto-retry sits outside) waits for it instead of failing
 * again. Groups get their own bucket (20 a minute). What the bot sends on its own — notifications, alerts,
 * broadcasts, a message an update sends to another chat — also draws on one global bucket (about 30 a second: the
 * Bots FAQ gives it for bulk notifications). A reply to the chat whose update is being handled does not: the flows'
 * replies are never paced here (their calls skip bot.api's transformers), so a global budget seen by the first
 * reply of a journey alone would only make new users queue for it — and, FIFO, the notifications behind them;
 * a 429 from Telegram still holds the chat and auto-retry waits it out. Calls without a chat (answerCallbackQuery,
 * getMe) are not paced. Waiting is FIFO per bucket: a reservation is taken when the call arrives.
 */
export interface PacingOptions {
  /** Messages a private chat may get at once before pacing starts (default 3). */
  chatBurst?: number;
  /** Sustained gap per private chat once its burst is spent (default 1000 ms). */
  chatIntervalMs?: number;
  /** Messages a group may get at once, then one per groupIntervalMs (default 20, 3000 ms: 20 a minute). */
  groupBurst?: number;
  groupIntervalMs?: number;
  /** Global bucket: burst and sustained rate per second (default 30 and 30). */
  globalBurst?: number;
  globalPerSecond?: number;
  /**
   * Added to every wait (default 50 ms): Telegram's clock starts when a call reaches it, ours when the call is
   * queued, and timers may fire a little early; without it a paced call can still land a hair too soon.
   */
  marginMs?: number;
  /** Buckets kept for idle chats before the oldest are dropped (a full bucket is the same as none). */
  maxChats?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

class Bucket {
  private tokens: number;
  private at: number;
  /** No call goes before this instant (a 429's retry_after). */
  heldUntil = 0;

  constructor(
    private readonly capacity: number,
    private readonly intervalMs: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.at = now;
  }

  /** Take one token; how long to wait before using it (tokens may go negative: later callers queue behind). */
  reserve(now: number): number {
    this.refill(now);
    this.tokens -= 1;
    const wait = this.tokens >= 0 ? 0 : -this.tokens * this.intervalMs;
    return Math.max(wait, this.heldUntil - now);
  }

  hold(until: number, now: number): void {
    this.refill(now);
    this.heldUntil = Math.max(this.heldUntil, until);
    this.tokens = Math.min(this.tokens, 0);
  }

  /** Full and not held: the same as a fresh bucket. */
  idle(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.capacity && this.heldUntil <= now;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.at) / this.intervalMs);
    this.at = now;
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function burstPacer(options: PacingOptions = {}): Transformer {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const chatBurst = options.chatBurst ?? 3;
  const chatInterval = options.chatIntervalMs ?? 1000;
  const groupBurst = options.groupBurst ?? 20;
  const groupInterval = options.groupIntervalMs ?? 3000;
  const maxChats = options.maxChats ?? 10_000;
  const margin = options.marginMs ?? 50;
  const global = new Bucket(options.globalBurst ?? 30, 1000 / (options.globalPerSecond ?? 30), now());
  const chats = new Map<string, Bucket>();

  const bucketOf = (chatId: string, at: number): Bucket => {
    let bucket = chats.get(chatId);
    if (bucket) {
      // Most recently used last, so the sweep below meets idle chats first.
      chats.delete(chatId);
    } else {
      const group = chatId.startsWith("-");
      bucket = new Bucket(group ? groupBurst : chatBurst, group ? groupInterval : chatInterval, at);
    }
    chats.set(chatId, bucket);
    if (chats.size > maxChats) {
      for (const [key, old] of chats) {
        if (chats.size <= maxChats) break;
        if (old.idle(at)) chats.delete(key);
        else break;
      }
    }
    return bucket;
  };

  return async (prev, method, payload, signal) => {
    const chat = (payload as { chat_id?: unknown } | undefined)?.chat_id;
    if (chat === undefined || chat === null) return prev(method, payload, signal);
    const at = now();
    const chatId = String(chat);
    const bucket = bucketOf(chatId, at);
    const reply = replyingTo.getStore() === chatId;
    const wait = Math.max(bucket.reserve(at), reply ? 0 : global.reserve(at));
    if (wait > 0) await sleep(Math.ceil(wait) + margin);
    const result = await prev(method, payload, signal);
    if (!result.ok && result.error_code === 429) {
      const after = now();
      bucket.hold(after + (result.parameters?.retry_after ?? 1) * 1000, after);
    }
    return result;
  };
}
