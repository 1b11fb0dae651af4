import type { Update, User } from "grammy/types";
import { BENCH_BOT, type LocalTelegram, type ShownMessage } from "./local-telegram.ts";

/** Builds the updates a Telegram user produces in their private chat with the bot. */
let nextUpdateId = 1;
let nextQueryId = 1;

export class SimUser {
  readonly from: User;

  constructor(
    readonly id: number,
    private readonly tg: LocalTelegram,
  ) {
    this.from = { id, is_bot: false, first_name: `User ${id}`, language_code: "en" };
  }

  private get chat() {
    return { id: this.id, type: "private" as const, first_name: this.from.first_name };
  }

  /** A text message; a leading /command gets its bot_command entity, as Telegram sends it. */
  text(text: string): Update {
    const command = /^\/[A-Za-z0-9_]+/.exec(text);
    return {
      update_id: nextUpdateId++,
      message: {
        message_id: this.tg.takeMessageId(this.id),
        date: Math.floor(Date.now() / 1000),
        chat: this.chat,
        from: this.from,
        text,
        ...(command
          ? { entities: [{ type: "bot_command" as const, offset: 0, length: command[0].length }] }
          : {}),
      },
    };
  }

  /** A press on an inline button of a message the bot sent. */
  press(message: ShownMessage, data: string): Update {
    const shown = {
      message_id: message.messageId,
      date: Math.floor(Date.now() / 1000),
      chat: this.chat,
      from: BENCH_BOT,
      ...(message.markup ? { reply_markup: message.markup } : {}),
    };
    return {
      update_id: nextUpdateId++,
      callback_query: {
        // "<chat id>:<n>" lets the local Telegram tie answerCallbackQuery to the chat.
        id: `${this.id}:${nextQueryId++}`,
        from: this.from,
        chat_instance: `ci-${this.id}`,
        data,
        message: message.photo
          ? { ...shown, caption: message.text, photo: [] }
          : { ...shown, text: message.text },
      },
    } as Update;
  }
}
