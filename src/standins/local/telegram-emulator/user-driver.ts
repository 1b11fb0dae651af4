import type { Message, Update, User } from "grammy/types";
import {
  ActorChatDriver,
  type ButtonSelector,
  type PressedButton,
  type SendOptions,
  type SentInlineQuery,
} from "./actor-driver.ts";
import type { DriverHost, WaitOptions } from "./chat-driver.ts";
import { inlineQueryId } from "./ids.ts";
import type { InlineAnswer } from "./inline.ts";
import type { CallbackAnswer } from "./types.ts";
import type { ChatState, UserState } from "./world.ts";

/** A Telegram user and their private chat with the bot. */
export class UserDriver extends ActorChatDriver {
  constructor(
    host: DriverHost,
    state: ChatState,
    private readonly userState: UserState,
  ) {
    super(host, state);
  }

  get user(): User {
    return this.userState.user;
  }

  get id(): number {
    return this.userState.user.id;
  }

  get blocked(): boolean {
    return this.userState.blocked;
  }

  /** Types a message to the bot (commands get bot_command entities); resolves to the user's message. */
  async send(text: string, options: SendOptions = {}): Promise<Message> {
    if (this.userState.blocked)
      throw new Error(`${this.user.first_name} has blocked the bot; call unblock() first.`);
    this.userState.started = true;
    return this.postUserMessage(this.user, text, options, true);
  }

  /** Sends a message with arbitrary fields and no text (a contact, a location…). */
  async sendRaw(fields: Partial<Message>): Promise<Message> {
    this.userState.started = true;
    return this.postUserMessage(this.user, fields.text, { extra: fields }, true);
  }

  /** Presses an inline button of a bot message in this chat (its current state, edits applied). */
  async press(message: Message | number, selector: ButtonSelector): Promise<PressedButton> {
    return this.pressAs(this.user, message, selector);
  }

  /** Send any callback data from a button of `message` (a forged or outdated button). */
  async pressData(message: Message | number, data: string): Promise<PressedButton> {
    return this.forgeAs(this.user, message, data);
  }

  /** Types "@bot <query>" in some chat: the bot gets an inline_query update and answers with results. */
  inlineQuery(query: string): SentInlineQuery {
    const { world, updates } = this.host;
    const id = inlineQueryId();
    const pending = { id, from: this.user, query, createdAt: world.now(), answer: undefined };
    world.inline.pending.set(id, pending);
    const update = updates.push({
      inline_query: { id, from: this.user, query, offset: "", chat_type: "sender" },
    } as Omit<Update, "update_id">);
    const answer = (options: WaitOptions = {}) =>
      new Promise<InlineAnswer>((resolve, reject) => {
        if (pending.answer) return resolve(pending.answer);
        const timeoutMs = options.timeoutMs ?? this.host.defaultTimeoutMs;
        const listener = (found: InlineAnswer) => {
          if (found.queryId !== id) return;
          clearTimeout(timer);
          world.inline.listeners.delete(listener);
          resolve(found);
        };
        const timer = setTimeout(() => {
          world.inline.listeners.delete(listener);
          reject(
            new Error(`Timed out after ${timeoutMs} ms waiting for the answer to inline query "${query}".`),
          );
        }, timeoutMs);
        world.inline.listeners.add(listener);
      });
    return { queryId: id, update, answer };
  }

  /** Picks an inline result and sends it into this private chat with the bot. */
  async sendInlineResult(answer: InlineAnswer, resultId: string): Promise<Message> {
    return this.postInlineResult(this.user, answer, resultId);
  }

  /**
   * Opens a t.me link to this bot as a Telegram client does: `?start=<payload>` sends "/start <payload>", a bare
   * link sends "/start". Any other link is refused (the emulator knows no other sites).
   */
  async openLink(url: string): Promise<Message> {
    const parsed = new URL(url);
    const username = this.host.world.bot.username?.toLowerCase();
    if (parsed.hostname !== "t.me" || parsed.pathname.slice(1).toLowerCase() !== username)
      throw new Error(`${url} is not a link to @${username}`);
    const start = parsed.searchParams.get("start");
    return this.send(start ? `/start ${start}` : "/start");
  }

  /** answerCallbackQuery records for this user's presses, in any chat. */
  callbackAnswers(): CallbackAnswer[] {
    return this.host.world.callbackAnswers((answer) => answer.fromId === this.id);
  }

  /** The user blocks the bot: later sends get 403, and the bot receives a my_chat_member update. */
  block(): void {
    if (this.userState.blocked) return;
    this.userState.blocked = true;
    this.pushMyChatMember("member", "kicked");
  }

  unblock(): void {
    if (!this.userState.blocked) return;
    this.userState.blocked = false;
    this.pushMyChatMember("kicked", "member");
  }

  private pushMyChatMember(from: "member" | "kicked", to: "member" | "kicked"): void {
    const { world, updates } = this.host;
    const member = (status: "member" | "kicked") =>
      status === "kicked" ? { status, user: world.bot, until_date: 0 } : { status, user: world.bot };
    updates.push({
      my_chat_member: {
        chat: this.state.chat,
        from: this.user,
        date: world.unixTime(),
        old_chat_member: member(from),
        new_chat_member: member(to),
      },
    } as Omit<Update, "update_id">);
  }
}
