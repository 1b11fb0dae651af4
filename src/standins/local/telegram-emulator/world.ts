import type { BotCommand, Chat, Message, User } from "grammy/types";
import { badRequest, forbidden } from "./errors.ts";
import { chatInstance } from "./ids.ts";
import { InlineQueries } from "./inline.ts";
import type { CallbackAnswer, ChatEvent, MemberStatus, ReplyKeyboardState, StoredFile } from "./types.ts";

export interface ChatState {
  chat: Chat;
  /** Group members by user id, the bot included. Empty for private chats. */
  members: Map<number, MemberStatus>;
  privacyMode: boolean;
  nextMessageId: number;
  /** Every message in the chat (the users' and the bot's), edits applied; deleted ones removed. */
  messages: Map<number, Message>;
  events: ChatEvent[];
  chatInstance: string;
  replyKeyboard: ReplyKeyboardState | undefined;
  listeners: Set<(event: ChatEvent) => void>;
}

export interface UserState {
  user: User;
  blocked: boolean;
  /** Telegram refuses bot-initiated private chats until the user has written to the bot. */
  started: boolean;
}

interface PendingQuery {
  id: string;
  fromId: number;
  chatId: number;
  messageId: number;
  data: string | undefined;
  createdAt: number;
  answered: boolean;
}

type NewEvent = ChatEvent extends infer E ? (E extends ChatEvent ? Omit<E, "seq" | "at"> : never) : never;

/** The emulator's whole state: users, chats, messages, files, commands, callback queries. */
/** A chat's menu button as the Bot API describes it. */
export type MenuButton =
  | { type: "commands" }
  | { type: "default" }
  | { type: "web_app"; text: string; web_app: { url: string } };

export class World {
  readonly users = new Map<number, UserState>();
  readonly chats = new Map<number, ChatState>();
  readonly files = new Map<string, StoredFile>();
  readonly queries = new Map<string, PendingQuery>();
  readonly inline = new InlineQueries();
  readonly commands = new Map<string, BotCommand[]>();
  /** Each private chat's menu button (setChatMenuButton); absent: the bot's default, the command list. */
  readonly menuButtons = new Map<number, MenuButton>();
  readonly texts = new Map<string, string>();
  private seq = 0;

  constructor(
    readonly bot: User,
    readonly now: () => number,
  ) {}

  unixTime(): number {
    return Math.floor(this.now() / 1000);
  }

  ensureUser(user: Partial<User> & { id: number }): UserState {
    const existing = this.users.get(user.id);
    if (existing) {
      Object.assign(existing.user, user);
      return existing;
    }
    const state: UserState = {
      user: { is_bot: false, first_name: `User ${user.id}`, ...user },
      blocked: false,
      started: false,
    };
    this.users.set(user.id, state);
    return state;
  }

  privateChat(userId: number): ChatState {
    const existing = this.chats.get(userId);
    if (existing) return existing;
    const user = this.users.get(userId)?.user;
    if (!user) throw new Error(`no user ${userId}`);
    const chat = {
      id: userId,
      type: "private",
      first_name: user.first_name,
      ...(user.last_name ? { last_name: user.last_name } : {}),
      ...(user.username ? { username: user.username } : {}),
    } as Chat;
    return this.addChat(chat);
  }

  groupChat(options: { id: number; title: string; type?: "group" | "supergroup"; botStatus?: MemberStatus }) {
    const existing = this.chats.get(options.id);
    if (existing) return existing;
    if (options.id >= 0) throw new Error("group chat ids are negative");
    const type = options.type ?? (options.id <= -1_000_000_000_000 ? "supergroup" : "group");
    const state = this.addChat({ id: options.id, type, title: options.title } as Chat);
    state.members.set(this.bot.id, options.botStatus ?? "member");
    return state;
  }

  private addChat(chat: Chat): ChatState {
    const state: ChatState = {
      chat,
      members: new Map(),
      privacyMode: true,
      nextMessageId: 1,
      messages: new Map(),
      events: [],
      chatInstance: chatInstance(),
      replyKeyboard: undefined,
      listeners: new Set(),
    };
    this.chats.set(chat.id, state);
    return state;
  }

  /** Resolve chat_id like Telegram: numeric id or @username of a known chat. */
  findChat(chatId: number | string): ChatState {
    if (typeof chatId === "number") {
      const chat = this.chats.get(chatId);
      if (chat) return chat;
    } else {
      const name = chatId.replace(/^@/, "").toLowerCase();
      for (const chat of this.chats.values())
        if ("username" in chat.chat && chat.chat.username?.toLowerCase() === name) return chat;
    }
    throw badRequest("chat not found");
  }

  /** The 403s Telegram answers when the bot may not write to a chat. */
  assertCanWrite(state: ChatState): void {
    if (state.chat.type === "private") {
      const user = this.users.get(state.chat.id);
      if (user?.blocked) throw forbidden("bot was blocked by the user");
      if (!user?.started) throw forbidden("bot can't initiate conversation with a user");
      return;
    }
    const status = state.members.get(this.bot.id);
    if (status === "kicked") throw forbidden("bot was kicked from the group chat");
    if (status === undefined || status === "left") throw forbidden("bot is not a member of the group chat");
  }

  takeMessageId(state: ChatState): number {
    const id = state.nextMessageId;
    state.nextMessageId += 1;
    return id;
  }

  /** A bot-authored message in this chat, or the 400 Telegram uses for the given action. */
  botMessage(state: ChatState, messageId: number, missing: string): Message {
    const message = state.messages.get(messageId);
    if (!message) throw badRequest(missing);
    if (message.from?.id !== this.bot.id) throw badRequest("message can't be edited");
    return message;
  }

  emit(state: ChatState, event: NewEvent): ChatEvent {
    this.seq += 1;
    const full = { ...event, seq: this.seq, at: this.now() } as ChatEvent;
    state.events.push(full);
    for (const listener of state.listeners) listener(full);
    return full;
  }

  callbackAnswers(filter: (answer: CallbackAnswer) => boolean): CallbackAnswer[] {
    const answers: CallbackAnswer[] = [];
    for (const chat of this.chats.values())
      for (const event of chat.events)
        if (event.kind === "callback_answer" && filter(event.answer)) answers.push(event.answer);
    return answers;
  }

  chatMember(state: ChatState, userId: number): MemberStatus {
    if (state.chat.type === "private")
      return userId === state.chat.id || userId === this.bot.id ? "member" : "left";
    return state.members.get(userId) ?? "left";
  }

  userById(userId: number): User | undefined {
    if (userId === this.bot.id) return this.bot;
    return this.users.get(userId)?.user;
  }
}

/** Deep copy so later edits never change what a test already holds. */
export function snapshot<T>(value: T): T {
  return structuredClone(value);
}
