import type { InlineKeyboardButton, Message, Update, User } from "grammy/types";
import { ChatDriver, type WaitOptions } from "./chat-driver.ts";
import { contentOf } from "./chat-events.ts";
import { detectUserEntities } from "./html.ts";
import { callbackQueryId } from "./ids.ts";
import { type InlineAnswer, messageOfResult } from "./inline.ts";
import type { CallbackAnswer } from "./types.ts";

/** Which inline button to press: exact label, RegExp over the label, callback data, or flat index (0-based). */
export type ButtonSelector =
  | string
  | RegExp
  | { data: string }
  | { text: string | RegExp }
  | { index: number };

export interface PressedButton {
  queryId: string;
  data: string;
  update: Update;
  /** Waits for the bot's answerCallbackQuery to this press. */
  answer(options?: WaitOptions): Promise<CallbackAnswer>;
}

export interface SentInlineQuery {
  queryId: string;
  update: Update;
  /** Waits for the bot's answerInlineQuery to this query. */
  answer(options?: WaitOptions): Promise<InlineAnswer>;
}

export interface SendOptions {
  /** Reply to this message (the user swiped to reply). */
  replyTo?: Message | number;
  /** Extra Message fields (contact, location…). */
  extra?: Partial<Message>;
}

function findButton(message: Message, selector: ButtonSelector): InlineKeyboardButton | undefined {
  const buttons = message.reply_markup?.inline_keyboard.flat() ?? [];
  if (typeof selector === "string") return buttons.find((button) => button.text === selector);
  if (selector instanceof RegExp) return buttons.find((button) => selector.test(button.text));
  if ("index" in selector) return buttons[selector.index];
  if ("data" in selector)
    return buttons.find((button) => "callback_data" in button && button.callback_data === selector.data);
  const label = selector.text;
  return buttons.find((button) =>
    typeof label === "string" ? button.text === label : label.test(button.text),
  );
}

function describeSelector(selector: ButtonSelector): string {
  if (typeof selector === "string") return JSON.stringify(selector);
  if (selector instanceof RegExp) return String(selector);
  return JSON.stringify(selector, (_key, value) => (value instanceof RegExp ? String(value) : value));
}

/** Shared by private chats and groups: a user sends a message or presses a button. */
export abstract class ActorChatDriver extends ChatDriver {
  protected postUserMessage(
    from: User,
    text: string | undefined,
    options: SendOptions,
    deliver: boolean,
  ): Message {
    const { world, updates } = this.host;
    const replyId = typeof options.replyTo === "number" ? options.replyTo : options.replyTo?.message_id;
    const replied = replyId === undefined ? undefined : this.state.messages.get(replyId);
    const entities = text ? detectUserEntities(text) : [];
    const message = {
      message_id: world.takeMessageId(this.state),
      from,
      chat: this.state.chat,
      date: world.unixTime(),
      ...(text !== undefined ? { text } : {}),
      ...(entities.length > 0 ? { entities } : {}),
      ...(replied ? { reply_to_message: { ...replied, reply_to_message: undefined } } : {}),
      ...options.extra,
    } as Message;
    this.state.messages.set(message.message_id, message);
    if (deliver) updates.push({ message: structuredClone(message) } as Omit<Update, "update_id">);
    return structuredClone(message);
  }

  protected pressAs(from: User, target: Message | number, selector: ButtonSelector): PressedButton {
    const id = typeof target === "number" ? target : target.message_id;
    const message = this.state.messages.get(id);
    if (!message)
      throw new Error(
        `Cannot press ${describeSelector(selector)}: message ${id} no longer exists in ${this.label()}.`,
      );
    const button = findButton(message, selector);
    if (!button) {
      const rows = message.reply_markup?.inline_keyboard ?? [];
      const listing = rows.length
        ? rows.map((row) => row.map((b) => `[${b.text}]`).join(" ")).join("\n  ")
        : "(the message has no inline keyboard)";
      throw new Error(
        `No button ${describeSelector(selector)} on message ${id} (${JSON.stringify(contentOf(message).slice(0, 60))}). Buttons:\n  ${listing}`,
      );
    }
    if (!("callback_data" in button) || button.callback_data === undefined) {
      const kind = Object.keys(button).find((key) => key !== "text") ?? "unknown";
      throw new Error(`Button [${button.text}] is a ${kind} button: pressing it sends the bot nothing.`);
    }
    return this.queueQuery(
      from,
      message,
      button.callback_data,
      `the answer to the press of [${button.text}]`,
    );
  }

  /**
   * A modified client sending any callback data (≤ 64 bytes, Telegram's limit) as if a button of `target` carried
   * it: for tests of forged and outdated button data.
   */
  protected forgeAs(from: User, target: Message | number, data: string): PressedButton {
    if (Buffer.byteLength(data, "utf8") > 64)
      throw new Error("Telegram never delivers callback data over 64 bytes");
    const id = typeof target === "number" ? target : target.message_id;
    const message = this.state.messages.get(id);
    if (!message) throw new Error(`Cannot press on message ${id}: it no longer exists in ${this.label()}.`);
    return this.queueQuery(from, message, data, `the answer to forged data ${JSON.stringify(data)}`);
  }

  /**
   * `from` picks result `resultId` of an inline answer in this chat: the result is posted as their message "via
   * @bot" (seen by the bot as Telegram's privacy rules allow), then `chosen_inline_result`.
   */
  protected postInlineResult(from: User, answer: InlineAnswer, resultId: string): Message {
    const result = answer.results.find((candidate) => candidate.id === resultId);
    if (!result)
      throw new Error(`No inline result ${JSON.stringify(resultId)} in the answer to "${answer.query}".`);
    const { world, updates } = this.host;
    const message = {
      message_id: world.takeMessageId(this.state),
      from,
      chat: this.state.chat,
      date: world.unixTime(),
      via_bot: world.bot,
      ...messageOfResult(result),
    } as Message;
    this.state.messages.set(message.message_id, message);
    if (this.seesEverything())
      updates.push({ message: structuredClone(message) } as Omit<Update, "update_id">);
    // Dropped on delivery unless the bot's allowed_updates ask for it (the queue filters like Telegram).
    updates.push({
      chosen_inline_result: {
        result_id: resultId,
        from,
        query: answer.query,
        ...(message.reply_markup ? { inline_message_id: `${this.chatId}_${message.message_id}` } : {}),
      },
    } as Omit<Update, "update_id">);
    return structuredClone(message);
  }

  /** Whether the bot receives every message of this chat (a private chat, or a group without privacy mode). */
  protected seesEverything(): boolean {
    return this.state.chat.type === "private";
  }

  private queueQuery(from: User, message: Message, data: string, what: string): PressedButton {
    const id = message.message_id;
    const { world, updates } = this.host;
    const queryId = callbackQueryId();
    world.queries.set(queryId, {
      id: queryId,
      fromId: from.id,
      chatId: this.chatId,
      messageId: id,
      data,
      createdAt: world.now(),
      answered: false,
    });
    const update = updates.push({
      callback_query: {
        id: queryId,
        from,
        message: structuredClone(message),
        chat_instance: this.state.chatInstance,
        data,
      },
    });
    return {
      queryId,
      data,
      update,
      answer: (options = {}) =>
        this.take(what, options, (event) =>
          event.kind === "callback_answer" && event.answer.queryId === queryId ? event.answer : undefined,
        ),
    };
  }
}
