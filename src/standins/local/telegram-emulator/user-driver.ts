import type { InlineKeyboardButton, Message, Update, User } from "grammy/types";
import { ChatDriver, contentOf, type DriverHost, type WaitOptions } from "./chat-driver.ts";
import { detectUserEntities } from "./html.ts";
import { callbackQueryId, inlineQueryId } from "./ids.ts";
import { type InlineAnswer, messageOfResult } from "./inline.ts";
import type { CallbackAnswer, MemberStatus } from "./types.ts";
import type { ChatState, UserState } from "./world.ts";

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
abstract class ActorChatDriver extends ChatDriver {
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

type Actor = UserDriver | User;
const userOf = (actor: Actor): User => (actor instanceof UserDriver ? actor.user : actor);

/** A group chat with members; the bot sees messages as Telegram's privacy mode allows. */
export class GroupDriver extends ActorChatDriver {
  addMember(actor: Actor, status: MemberStatus = "member"): this {
    const user = userOf(actor);
    this.host.world.ensureUser(user);
    this.state.members.set(user.id, status);
    return this;
  }

  removeMember(actor: Actor): this {
    this.state.members.set(userOf(actor).id, "left");
    return this;
  }

  memberStatus(actor: Actor): MemberStatus {
    return this.state.members.get(userOf(actor).id) ?? "left";
  }

  /** With privacy mode on (the default) a non-admin bot only sees commands and replies to its messages. */
  setPrivacyMode(enabled: boolean): this {
    this.state.privacyMode = enabled;
    return this;
  }

  /** Changes the bot's own status here and tells the bot with a my_chat_member update. */
  setBotStatus(status: MemberStatus, by?: Actor): void {
    const { world, updates } = this.host;
    const old = this.state.members.get(world.bot.id) ?? "left";
    this.state.members.set(world.bot.id, status);
    const member = (value: MemberStatus) => ({
      status: value,
      user: world.bot,
      ...(value === "kicked" ? { until_date: 0 } : {}),
    });
    updates.push({
      my_chat_member: {
        chat: this.state.chat,
        from: by ? userOf(by) : world.bot,
        date: world.unixTime(),
        old_chat_member: member(old),
        new_chat_member: member(status),
      },
    } as Omit<Update, "update_id">);
  }

  /** A member writes in the group; resolves to the message (even when privacy mode hides it from the bot). */
  async send(from: Actor, text: string, options: SendOptions = {}): Promise<Message> {
    const user = userOf(from);
    const status = this.state.members.get(user.id);
    if (!status || status === "left" || status === "kicked")
      throw new Error(`${user.first_name} is not a member of ${this.label()}; call addMember() first.`);
    return this.postUserMessage(user, text, options, this.botSees(text, options));
  }

  async press(from: Actor, message: Message | number, selector: ButtonSelector): Promise<PressedButton> {
    return this.pressAs(userOf(from), message, selector);
  }

  /** `from` sends any callback data from a button of `message` (a forged or outdated button). */
  async pressData(from: Actor, message: Message | number, data: string): Promise<PressedButton> {
    return this.forgeAs(userOf(from), message, data);
  }

  /** `from` picks an inline result and sends it into this group. */
  async sendInlineResult(from: Actor, answer: InlineAnswer, resultId: string): Promise<Message> {
    return this.postInlineResult(userOf(from), answer, resultId);
  }

  protected override seesEverything(): boolean {
    const status = this.state.members.get(this.host.world.bot.id);
    if (!status || status === "left" || status === "kicked") return false;
    return !this.state.privacyMode || status === "administrator" || status === "creator";
  }

  private botSees(text: string, options: SendOptions): boolean {
    const { world } = this.host;
    const botStatus = this.state.members.get(world.bot.id);
    if (!botStatus || botStatus === "left" || botStatus === "kicked") return false;
    if (!this.state.privacyMode || botStatus === "administrator" || botStatus === "creator") return true;
    const replyId = typeof options.replyTo === "number" ? options.replyTo : options.replyTo?.message_id;
    if (replyId !== undefined && this.state.messages.get(replyId)?.from?.id === world.bot.id) return true;
    const command = /^\/[a-zA-Z0-9_]{1,32}(?:@([a-zA-Z0-9_]{3,32}))?(?=$|\s)/.exec(text);
    if (!command) return false;
    const addressee = command[1];
    return addressee === undefined || addressee.toLowerCase() === world.bot.username?.toLowerCase();
  }
}
