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
