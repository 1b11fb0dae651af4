import type { InlineKeyboardMarkup, Message, MessageEntity } from "grammy/types";
import { badRequest, NOT_MODIFIED } from "#src/standins/local/telegram-emulator/errors.js";
import { parseHtml } from "#src/standins/local/telegram-emulator/html.js";
import { parseReplyMarkup, sameJson } from "#src/standins/local/telegram-emulator/markup.js";
import { Params } from "#src/standins/local/telegram-emulator/params.js";
import { type ChatState, snapshot, type World } from "#src/standins/local/telegram-emulator/world.js";
import type { Handler } from "./context.ts";
import { documentOf, photoSizes, resolveFile } from "./files.ts";

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

/** Apply parse_mode (HTML is parsed like Telegram; Markdown modes keep the raw text) or explicit entities. */
function formatText(
  params: Params,
  textField: string,
  modeField: string,
  entitiesField: string,
): { text: string; entities: MessageEntity[] | undefined } | undefined {
  const raw = params.optString(textField);
  if (raw === undefined) return undefined;
  const mode = params.optString(modeField);
  if (mode?.toUpperCase() === "HTML") {
    const { text, entities } = parseHtml(raw);
    return { text, entities: entities.length > 0 ? entities : undefined };
  }
  const entities = params.json<MessageEntity[]>(entitiesField);
  return { text: raw, entities: entities && entities.length > 0 ? entities : undefined };
}

function messageText(params: Params) {
  const formatted = formatText(params, "text", "parse_mode", "entities");
  if (!formatted || formatted.text.trim() === "") throw badRequest("message text is empty");
  if (formatted.text.length > TEXT_LIMIT) throw badRequest("message is too long");
  return formatted;
}

function caption(params: Params): { caption?: string; caption_entities?: MessageEntity[] } {
  const formatted = formatText(params, "caption", "parse_mode", "caption_entities");
  if (!formatted || formatted.text === "") return {};
  if (formatted.text.length > CAPTION_LIMIT) throw badRequest("message caption is too long");
  return { caption: formatted.text, ...(formatted.entities ? { caption_entities: formatted.entities } : {}) };
}

function targetChat(params: Params, world: World): ChatState {
  const state = world.findChat(params.chatId());
  world.assertCanWrite(state);
  return state;
}

/** Store a new bot message, apply reply keyboards, record the event; returns what Telegram would. */
function postMessage(world: World, state: ChatState, params: Params, content: Partial<Message>): Message {
  const markup = parseReplyMarkup(params.json("reply_markup"));
  const replyId =
    params.json<{ message_id?: number }>("reply_parameters")?.message_id ??
    params.optInt("reply_to_message_id");
  const replied = replyId === undefined ? undefined : state.messages.get(Number(replyId));
  if (replyId !== undefined && !replied) {
    const allow = params.json<{ allow_sending_without_reply?: boolean }>(
      "reply_parameters",
    )?.allow_sending_without_reply;
    if (!allow && !params.bool("allow_sending_without_reply"))
      throw badRequest("message to be replied not found");
  }
  const message = {
    message_id: world.takeMessageId(state),
    from: world.bot,
    chat: state.chat,
    date: world.unixTime(),
    ...(replied ? { reply_to_message: { ...replied, reply_to_message: undefined } } : {}),
    ...content,
    ...(markup.inline ? { reply_markup: markup.inline } : {}),
  } as Message;
  if (markup.replyKeyboard === "remove") state.replyKeyboard = undefined;
  else if (markup.replyKeyboard) state.replyKeyboard = markup.replyKeyboard;
  state.messages.set(message.message_id, message);
  world.emit(state, { kind: "message", message: snapshot(message) });
  return snapshot(message);
}

const sendMessage: Handler = (params, { world }) => {
  const state = targetChat(params, world);
  const { text, entities } = messageText(params);
  return postMessage(world, state, params, { text, ...(entities ? { entities } : {}) });
};

const sendPhoto: Handler = (params, { world }) => {
  const state = targetChat(params, world);
  const captionFields = caption(params);
  const file = resolveFile(world, params.inputFile("photo"), "photo");
  return postMessage(world, state, params, { photo: photoSizes(file), ...captionFields });
};

const sendDocument: Handler = (params, { world }) => {
  const state = targetChat(params, world);
  const captionFields = caption(params);
  const file = resolveFile(world, params.inputFile("document"), "document");
  return postMessage(world, state, params, { document: documentOf(file), ...captionFields });
};

function editTarget(params: Params, world: World): { state: ChatState; message: Message } {
  if (params.has("inline_message_id")) throw badRequest("MESSAGE_ID_INVALID");
  const state = world.findChat(params.chatId());
  const messageId = params.int("message_id", "message identifier is not specified");
  return { state, message: world.botMessage(state, messageId, "message to edit not found") };
}

/** Without reply_markup an edit removes the inline keyboard, exactly like Telegram. */
function newInlineMarkup(params: Params): InlineKeyboardMarkup | undefined {
  return parseReplyMarkup(params.json("reply_markup")).inline;
}

function applyEdit(
  world: World,
  state: ChatState,
  previous: Message,
  changes: Partial<Message>,
  markup: InlineKeyboardMarkup | undefined,
  method: "editMessageText" | "editMessageCaption" | "editMessageReplyMarkup" | "editMessageMedia",
): Message {
  const next = { ...previous, ...changes, edit_date: world.unixTime() } as Message;
  if (markup) next.reply_markup = markup;
  else delete next.reply_markup;
  for (const key of Object.keys(next) as (keyof Message)[]) if (next[key] === undefined) delete next[key];
  state.messages.set(previous.message_id, next);
  world.emit(state, { kind: "edit", method, message: snapshot(next), previous: snapshot(previous) });
  return snapshot(next);
}

const editMessageText: Handler = (params, { world }) => {
  const { state, message } = editTarget(params, world);
  if (message.text === undefined) throw badRequest("there is no text in the message to edit");
  const { text, entities } = messageText(params);
  const markup = newInlineMarkup(params);
  if (text === message.text && sameJson(entities, message.entities) && sameJson(markup, message.reply_markup))
    throw badRequest(NOT_MODIFIED);
  return applyEdit(world, state, message, { text, entities }, markup, "editMessageText");
};

const editMessageCaption: Handler = (params, { world }) => {
  const { state, message } = editTarget(params, world);
  if (!message.photo && !message.document) throw badRequest("there is no caption in the message to edit");
  const fields = caption(params);
  const markup = newInlineMarkup(params);
  if (
    fields.caption === message.caption &&
    sameJson(fields.caption_entities, message.caption_entities) &&
    sameJson(markup, message.reply_markup)
  )
    throw badRequest(NOT_MODIFIED);
  return applyEdit(
    world,
    state,
    message,
    { caption: fields.caption, caption_entities: fields.caption_entities },
    markup,
    "editMessageCaption",
  );
};

const editMessageReplyMarkup: Handler = (params, { world }) => {
  const { state, message } = editTarget(params, world);
  const markup = newInlineMarkup(params);
  if (sameJson(markup, message.reply_markup)) throw badRequest(NOT_MODIFIED);
  return applyEdit(world, state, message, {}, markup, "editMessageReplyMarkup");
};

const editMessageMedia: Handler = (params, { world }) => {
  const { state, message } = editTarget(params, world);
  const media = params.json<{ type?: string; media?: string; caption?: string; parse_mode?: string }>(
    "media",
  );
  if (!media || (media.type !== "photo" && media.type !== "document") || typeof media.media !== "string")
    throw badRequest("can't parse InputMedia JSON object");
  if (!message.photo && !message.document) throw badRequest("there is no media in the message to edit");
  const mediaParams = new Params(
    { ...params.fields, __media: media.media, caption: media.caption, parse_mode: media.parse_mode },
    params.files,
  );
  const file = resolveFile(world, mediaParams.inputFile("__media"), media.type);
  const content: Partial<Message> =
    media.type === "photo"
      ? { photo: photoSizes(file), document: undefined }
      : { document: documentOf(file), photo: undefined };
  return applyEdit(
    world,
    state,
    message,
    { ...content, caption: undefined, caption_entities: undefined, ...caption(mediaParams) },
    newInlineMarkup(params),
    "editMessageMedia",
  );
};

const deleteMessage: Handler = (params, { world }) => {
  const state = world.findChat(params.chatId());
  const messageId = params.int("message_id", "message identifier is not specified");
  const message = state.messages.get(messageId);
  if (!message) throw badRequest("message to delete not found");
  state.messages.delete(messageId);
  world.emit(state, { kind: "delete", messageId, message: snapshot(message) });
  return true;
};

const deleteMessages: Handler = (params, { world }) => {
  const state = world.findChat(params.chatId());
  const ids = params.json<number[]>("message_ids") ?? [];
  if (ids.length < 1 || ids.length > 100) throw badRequest("message_ids must contain 1-100 identifiers");
  for (const messageId of ids) {
    const message = state.messages.get(messageId);
    if (!message) continue;
    state.messages.delete(messageId);
    world.emit(state, { kind: "delete", messageId, message: snapshot(message) });
  }
  return true;
};

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

const sendChatAction: Handler = (params, { world }) => {
  const state = targetChat(params, world);
  const action = params.string("action", "action is empty");
  if (!CHAT_ACTIONS.has(action)) throw badRequest("wrong parameter action in request");
  world.emit(state, { kind: "chat_action", action });
  return true;
};

export const messageMethods: Record<string, Handler> = {
  sendMessage,
  sendPhoto,
  sendDocument,
  editMessageText,
  editMessageCaption,
  editMessageReplyMarkup,
  editMessageMedia,
  deleteMessage,
  deleteMessages,
  sendChatAction,
};
