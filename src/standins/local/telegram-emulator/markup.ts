import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { badRequest } from "./errors.ts";
import type { ReplyButton, ReplyKeyboardState } from "./types.ts";

/** What a reply_markup does: an inline keyboard echoed on the message, or a change of the reply keyboard. */
interface ParsedMarkup {
  inline: InlineKeyboardMarkup | undefined;
  replyKeyboard: ReplyKeyboardState | "remove" | undefined;
}

const ACTIONS = [
  "url",
  "callback_data",
  "web_app",
  "login_url",
  "switch_inline_query",
  "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat",
  "copy_text",
  "callback_game",
  "pay",
] as const;

const MAX_BUTTONS = 100;

/** Validate like Telegram does; the 400 descriptions are Telegram's. */
export function parseReplyMarkup(markup: unknown): ParsedMarkup {
  if (markup === undefined || markup === null) return { inline: undefined, replyKeyboard: undefined };
  if (typeof markup !== "object") throw badRequest("can't parse reply keyboard markup JSON object");
  const value = markup as Record<string, unknown>;
  if ("inline_keyboard" in value)
    return { inline: parseInline(value.inline_keyboard), replyKeyboard: undefined };
  if ("keyboard" in value) {
    const rows = value.keyboard;
    if (!Array.isArray(rows) || rows.some((row) => !Array.isArray(row)))
      throw badRequest('field "keyboard" of the ReplyKeyboardMarkup must be an Array of Arrays');
    const keyboard = rows.map((row: unknown[]) =>
      row.map((button) => (typeof button === "string" ? { text: button } : (button as ReplyButton))),
    );
    if (keyboard.flat().some((button) => typeof button.text !== "string" || button.text === ""))
      throw badRequest("can't parse keyboard button: Text must be non-empty");
    return {
      inline: undefined,
      replyKeyboard: {
        keyboard,
        oneTime: value.one_time_keyboard === true,
        placeholder:
          typeof value.input_field_placeholder === "string" ? value.input_field_placeholder : undefined,
      },
    };
  }
  if (value.remove_keyboard === true) return { inline: undefined, replyKeyboard: "remove" };
  if (value.force_reply === true) return { inline: undefined, replyKeyboard: undefined };
  throw badRequest("can't parse reply keyboard markup JSON object");
}

function parseInline(rows: unknown): InlineKeyboardMarkup | undefined {
  if (!Array.isArray(rows) || rows.some((row) => !Array.isArray(row)))
    throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
  const keyboard = (rows as unknown[][]).map((row) => row.map(checkButton)).filter((row) => row.length > 0);
  if (keyboard.flat().length > MAX_BUTTONS) throw badRequest("reply markup is too long");
  // An empty inline keyboard is the same as none: Telegram echoes no reply_markup.
  return keyboard.length > 0 ? { inline_keyboard: keyboard } : undefined;
}

function checkButton(raw: unknown): InlineKeyboardButton {
  if (!raw || typeof raw !== "object")
    throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  const button = raw as Record<string, unknown>;
  if (typeof button.text !== "string" || button.text === "")
    throw badRequest("can't parse inline keyboard button: Text must be non-empty");
  const actions = ACTIONS.filter((key) => button[key] !== undefined && button[key] !== null);
  if (actions.length === 0)
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  if (button.callback_data !== undefined) {
    const data = button.callback_data;
    const bytes = typeof data === "string" ? Buffer.byteLength(data) : 0;
    if (bytes < 1 || bytes > 64) throw badRequest("BUTTON_DATA_INVALID");
  }
  if (button.url !== undefined) checkUrl(String(button.url));
  if (button.copy_text !== undefined) {
    const text = (button.copy_text as { text?: unknown } | null)?.text;
    if (typeof text !== "string" || text.length < 1 || text.length > 256)
      throw badRequest("COPY_TEXT_INVALID");
  }
  return button as unknown as InlineKeyboardButton;
}

/** Telegram accepts only http(s):// and tg:// links on buttons. */
function checkUrl(url: string): void {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === "tg") {
    if (!/^tg:\/\/[a-z_]+/i.test(url)) throw badRequest("BUTTON_URL_INVALID");
    return;
  }
  if (scheme === undefined || scheme === "http" || scheme === "https") {
    const withScheme = scheme ? url : `http://${url}`;
    try {
      const parsed = new URL(withScheme);
      if (!parsed.hostname || (!parsed.hostname.includes(".") && parsed.hostname !== "localhost"))
        throw new Error("no host");
    } catch {
      throw badRequest("BUTTON_URL_INVALID");
    }
    return;
  }
  throw badRequest(`inline keyboard button URL '${url}' is invalid: Unsupported URL protocol`);
}

/** Order-insensitive deep equality for JSON values ("message is not modified"). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => sameJson(item, other[index]));
  }
  const left = Object.entries(a as object).filter(([, v]) => v !== undefined);
  const right = Object.entries(b as object).filter(([, v]) => v !== undefined);
  if (left.length !== right.length) return false;
  const rightMap = new Map(right);
  return left.every(([key, value]) => rightMap.has(key) && sameJson(value, rightMap.get(key)));
}
