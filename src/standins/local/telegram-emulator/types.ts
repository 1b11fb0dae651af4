import type {
  BotCommand,
  Chat,
  InlineKeyboardMarkup,
  KeyboardButton,
  Message,
  Update,
  User,
} from "grammy/types";

export type { BotCommand, Chat, InlineKeyboardMarkup, Message, Update, User };

export type MemberStatus = "creator" | "administrator" | "member" | "restricted" | "left" | "kicked";

/** Something the bot did in a chat, in order. The driver hands each one out once. */
export type ChatEvent =
  | { seq: number; at: number; kind: "message"; message: Message }
  | {
      seq: number;
      at: number;
      kind: "edit";
      method: "editMessageText" | "editMessageCaption" | "editMessageReplyMarkup" | "editMessageMedia";
      message: Message;
      previous: Message;
    }
  | { seq: number; at: number; kind: "delete"; messageId: number; message: Message | undefined }
  | { seq: number; at: number; kind: "callback_answer"; answer: CallbackAnswer }
  | { seq: number; at: number; kind: "chat_action"; action: string };

/** What answerCallbackQuery recorded for one press. */
export interface CallbackAnswer {
  queryId: string;
  fromId: number;
  chatId: number;
  messageId: number;
  data: string | undefined;
  text: string | undefined;
  showAlert: boolean;
  url: string | undefined;
  cacheTime: number | undefined;
  /** Milliseconds between the press and the answer (for benches, never for test assertions). */
  latencyMs: number;
}

/** One HTTP call the bot made, for assertions. Files appear as `{ file: name, size }`. */
export interface CallRecord {
  method: string;
  params: Record<string, unknown>;
  at: number;
  status: number;
  ok: boolean;
  description?: string;
  result?: unknown;
  /** Set when an injected fault produced the answer. */
  fault?: boolean;
}

export interface StoredFile {
  fileId: string;
  fileUniqueId: string;
  kind: "photo" | "document";
  bytes: Buffer;
  fileName: string | undefined;
  mimeType: string | undefined;
  width: number;
  height: number;
  path: string;
}

/** A reply-keyboard button as the user sees it (strings normalized to `{ text }`). */
export type ReplyButton = Exclude<KeyboardButton, string>;

export interface ReplyKeyboardState {
  keyboard: ReplyButton[][];
  oneTime: boolean;
  placeholder: string | undefined;
}

export interface BotIdentity {
  username: string;
  first_name: string;
}
