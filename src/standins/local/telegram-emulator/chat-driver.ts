import type { Message } from "grammy/types";
import { describeEvent, describeMatch, type MessageMatch, matches } from "./chat-events.ts";
import type { CallRecord, ChatEvent, ReplyButton } from "./types.ts";
import type { UpdateQueue } from "./updates.ts";
import type { ChatState, World } from "./world.ts";

export interface WaitOptions {
  /** Default: the emulator's `defaultTimeoutMs` (10 s). */
  timeoutMs?: number;
}

export interface NextOptions extends WaitOptions {
  match?: MessageMatch;
}

/** What drivers need from the emulator. */
export interface DriverHost {
  world: World;
  updates: UpdateQueue;
  defaultTimeoutMs: number;
  calls(): readonly CallRecord[];
  closing: AbortSignal;
}

interface Waiter {
  test: (event: ChatEvent) => unknown;
  resolve: (value: unknown) => void;
}

/**
 * The bot's side of one chat as a test sees it. Every bot event is handed out once: `nextMessage()`,
 * `nextEdit()`, `waitFor()`… return the earliest matching event not yet returned by any of them.
 */
export class ChatDriver {
  protected readonly consumed = new Set<number>();
  private readonly waiters: Waiter[] = [];

  constructor(
    protected readonly host: DriverHost,
    protected readonly state: ChatState,
  ) {
    state.listeners.add((event) => this.dispatch(event));
  }

  get chatId(): number {
    return this.state.chat.id;
  }

  get chat() {
    return this.state.chat;
  }

  /** Everything the bot did in this chat, oldest first. */
  events(): readonly ChatEvent[] {
    return this.state.events;
  }

  /** Events not yet returned by next…()/waitFor(): assert `[]` after `tg.idle()` to prove the bot sent nothing. */
  unconsumed(): ChatEvent[] {
    return this.state.events.filter((event) => !this.consumed.has(event.seq));
  }

  /** Forget everything so far: later next…() calls only see newer events. */
  consumeAll(): void {
    for (const event of this.state.events) this.consumed.add(event.seq);
  }

  /** The bot's messages as they are now (edits applied, deleted ones gone), oldest first. */
  messages(): Message[] {
    return [...this.state.messages.values()]
      .filter((message) => message.from?.id === this.host.world.bot.id)
      .sort((a, b) => a.message_id - b.message_id)
      .map((message) => structuredClone(message));
  }

  lastMessage(): Message | undefined {
    return this.messages().at(-1);
  }

  /** The current state of one message (the bot's or the user's). */
  message(messageId: number): Message | undefined {
    const message = this.state.messages.get(messageId);
    return message && structuredClone(message);
  }

  /** The reply keyboard the user currently sees, if any. */
  replyKeyboard(): ReplyButton[][] | undefined {
    return this.state.replyKeyboard?.keyboard;
  }

  /** Listen to every bot event in this chat (the terminal chat uses this). Returns an unsubscribe function. */
  onEvent(listener: (event: ChatEvent) => void): () => void {
    this.state.listeners.add(listener);
    return () => this.state.listeners.delete(listener);
  }

  /** The next new message from the bot (text, photo or document). */
  nextMessage(options: NextOptions = {}): Promise<Message> {
    return this.take(describeMatch("a new bot message", options.match), options, (event) =>
      event.kind === "message" && matches(event.message, options.match) ? event.message : undefined,
    );
  }

  nextPhoto(options: NextOptions = {}): Promise<Message> {
    return this.take(describeMatch("a new photo", options.match), options, (event) =>
      event.kind === "message" && event.message.photo && matches(event.message, options.match)
        ? event.message
        : undefined,
    );
  }

  nextDocument(options: NextOptions = {}): Promise<Message> {
    return this.take(describeMatch("a new document", options.match), options, (event) =>
      event.kind === "message" && event.message.document && matches(event.message, options.match)
        ? event.message
        : undefined,
    );
  }

  /** The next edit (of that message, when given); resolves to the message after the edit. */
  nextEdit(target?: Message | number, options: NextOptions = {}): Promise<Message> {
    const id = typeof target === "number" ? target : target?.message_id;
    const what = describeMatch(id === undefined ? "an edit" : `an edit of message ${id}`, options.match);
    return this.take(what, options, (event) =>
      event.kind === "edit" &&
      (id === undefined || event.message.message_id === id) &&
      matches(event.message, options.match)
        ? event.message
        : undefined,
    );
  }

  /** The next deletion (of that message, when given); resolves to the deleted message id. */
  nextDeletion(target?: Message | number, options: WaitOptions = {}): Promise<number> {
    const id = typeof target === "number" ? target : target?.message_id;
    return this.take(id === undefined ? "a deletion" : `deletion of message ${id}`, options, (event) =>
      event.kind === "delete" && (id === undefined || event.messageId === id) ? event.messageId : undefined,
    );
  }

  /** The first not-yet-handed-out bot event matching the predicate. */
  waitFor(predicate: (event: ChatEvent) => boolean, options: WaitOptions = {}): Promise<ChatEvent> {
    return this.take("an event matching the predicate", options, (event) =>
      predicate(event) ? event : undefined,
    );
  }

  /** Resolves when a condition over the chat's state holds (checked now and after every bot event). */
  waitUntil(condition: () => boolean, options: WaitOptions & { description?: string } = {}): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        unsubscribe();
        this.host.closing.removeEventListener("abort", onClose);
      };
      const unsubscribe = this.onEvent(() => {
        if (!condition()) return;
        stop();
        resolve();
      });
      const onClose = () => {
        stop();
        reject(new Error("the Telegram emulator was closed"));
      };
      this.host.closing.addEventListener("abort", onClose);
      const timeoutMs = options.timeoutMs ?? this.host.defaultTimeoutMs;
      const timer = setTimeout(() => {
        stop();
        reject(new Error(this.timeoutReport(options.description ?? "a condition to hold", timeoutMs)));
      }, timeoutMs);
    });
  }

  protected take<T>(
    what: string,
    options: WaitOptions,
    test: (event: ChatEvent) => T | undefined,
  ): Promise<T> {
    for (const event of this.state.events) {
      if (this.consumed.has(event.seq)) continue;
      const value = test(event);
      if (value !== undefined) {
        this.consumed.add(event.seq);
        return Promise.resolve(value);
      }
    }
    if (this.host.closing.aborted) return Promise.reject(new Error("the Telegram emulator was closed"));
    return new Promise<T>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.host.defaultTimeoutMs;
      const waiter: Waiter = {
        test,
        resolve: (value) => {
          cleanup();
          resolve(value as T);
        },
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.host.closing.removeEventListener("abort", onClose);
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
      };
      const onClose = () => {
        cleanup();
        reject(new Error(`the Telegram emulator was closed while waiting for ${what}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(this.timeoutReport(what, timeoutMs)));
      }, timeoutMs);
      this.host.closing.addEventListener("abort", onClose);
      this.waiters.push(waiter);
    });
  }

  private dispatch(event: ChatEvent): void {
    for (const waiter of this.waiters) {
      const value = waiter.test(event);
      if (value === undefined) continue;
      this.consumed.add(event.seq);
      waiter.resolve(value);
      return;
    }
  }

  /** A timeout message that shows what the bot did instead, and why it may have failed. */
  protected timeoutReport(what: string, timeoutMs: number): string {
    const lines = [`Timed out after ${timeoutMs} ms waiting for ${what} in ${this.label()}.`];
    const events = this.state.events.slice(-15);
    if (events.length === 0) lines.push("The bot has done nothing in this chat.");
    else lines.push("The bot's latest events here (✓ = already handed out):");
    for (const event of events)
      lines.push(`  ${this.consumed.has(event.seq) ? "✓" : " "} ${describeEvent(event)}`);
    const failures = this.host
      .calls()
      .filter(
        (call) => !call.ok && call.method !== "getUpdates" && Number(call.params.chat_id) === this.chatId,
      )
      .slice(-5);
    for (const call of failures)
      lines.push(`  ✗ ${call.method} failed: ${call.status} ${call.description ?? ""}`);
    const pending = this.host.updates.size;
    if (pending > 0) lines.push(`${pending} update(s) are still waiting to be fetched by the bot.`);
    return lines.join("\n");
  }

  protected label(): string {
    const chat = this.state.chat;
    const name = "title" in chat ? chat.title : "first_name" in chat ? chat.first_name : "";
    return `chat ${chat.id} (${name})`;
  }
}
