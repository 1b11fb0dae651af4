import type { InlineQueryResult, InlineQueryResultsButton, Message, MessageEntity, User } from "grammy/types";
import { badRequest } from "./errors.ts";
import { parseHtml } from "./html.ts";
import { parseReplyMarkup } from "./markup.ts";

/**
 * Inline mode: a user types "@bot <query>" in any chat (an `inline_query` update), the bot answers with results
 * (answerInlineQuery), the user picks one and it is posted in that chat as the user's message "via @bot"; Telegram
 * then sends `chosen_inline_result` (only to bots with inline feedback on — here when allowed_updates asks for it).
 */
export interface InlineAnswer {
  queryId: string;
  fromId: number;
  query: string;
  results: InlineQueryResult[];
  button: InlineQueryResultsButton | undefined;
  cacheTime: number | undefined;
  isPersonal: boolean;
  nextOffset: string | undefined;
}

interface PendingInlineQuery {
  id: string;
  from: User;
  query: string;
  createdAt: number;
  answer: InlineAnswer | undefined;
}

const MAX_RESULTS = 50;
const START_PARAMETER = /^[A-Za-z0-9_-]{1,64}$/;
const RESULT_TYPES = new Set([
  "article",
  "photo",
  "gif",
  "mpeg4_gif",
  "video",
  "audio",
  "voice",
  "document",
  "location",
  "venue",
  "contact",
  "game",
  "sticker",
]);

/** The inline queries users sent and the bot's answers (answered once, like Telegram). */
export class InlineQueries {
  readonly pending = new Map<string, PendingInlineQuery>();
  readonly listeners = new Set<(answer: InlineAnswer) => void>();

  /** Check an answerInlineQuery call as Telegram does and record it. */
  answer(
    query: PendingInlineQuery | undefined,
    input: {
      results: unknown;
      button: InlineQueryResultsButton | undefined;
      cacheTime: number | undefined;
      isPersonal: boolean;
      nextOffset: string | undefined;
    },
    expired: boolean,
  ): InlineAnswer {
    if (!query || query.answer || expired)
      throw badRequest("query is too old and response timeout expired or query ID is invalid");
    if (!Array.isArray(input.results)) throw badRequest("can't parse inline query results JSON object");
    if (input.results.length > MAX_RESULTS) throw badRequest("RESULTS_TOO_MUCH");
    const ids = new Set<string>();
    for (const result of input.results as InlineQueryResult[]) {
      if (!result || typeof result !== "object" || !RESULT_TYPES.has(result.type))
        throw badRequest("RESULT_TYPE_INVALID");
      const id = String(result.id ?? "");
      if (id === "" || Buffer.byteLength(id) > 64) throw badRequest("RESULT_ID_INVALID");
      if (ids.has(id)) throw badRequest("RESULT_ID_DUPLICATE");
      ids.add(id);
      if (result.type === "article") {
        const content = result.input_message_content;
        if (!content || !("message_text" in content) || !content.message_text)
          throw badRequest("MESSAGE_EMPTY");
        if (!result.title) throw badRequest("RESULT_TITLE_EMPTY");
      }
      if (result.reply_markup) parseReplyMarkup(result.reply_markup);
    }
    const button = input.button;
    if (button) {
      if (!button.text) throw badRequest("BUTTON_TEXT_INVALID");
      const start = "start_parameter" in button ? button.start_parameter : undefined;
      if (start !== undefined && !START_PARAMETER.test(start)) throw badRequest("START_PARAM_INVALID");
    }
    const answer: InlineAnswer = {
      queryId: query.id,
      fromId: query.from.id,
      query: query.query,
      results: structuredClone(input.results as InlineQueryResult[]),
      button,
      cacheTime: input.cacheTime,
      isPersonal: input.isPersonal,
      nextOffset: input.nextOffset,
    };
    query.answer = answer;
    for (const listener of [...this.listeners]) listener(answer);
    return answer;
  }
}

/** The message a picked article result becomes (text + entities, its inline keyboard). */
export function messageOfResult(result: InlineQueryResult): Partial<Message> {
  if (result.type !== "article")
    throw new Error(`posting a ${result.type} result is not supported by the emulator`);
  const content = result.input_message_content;
  if (!("message_text" in content)) throw new Error("the article has no message_text");
  let text = content.message_text;
  let entities: MessageEntity[] | undefined = content.entities;
  if (content.parse_mode?.toUpperCase() === "HTML") {
    const parsed = parseHtml(text);
    text = parsed.text;
    entities = parsed.entities.length > 0 ? parsed.entities : undefined;
  }
  const markup = result.reply_markup ? parseReplyMarkup(result.reply_markup).inline : undefined;
  return {
    text,
    ...(entities ? { entities } : {}),
    ...(markup ? { reply_markup: markup } : {}),
  } as Partial<Message>;
}
