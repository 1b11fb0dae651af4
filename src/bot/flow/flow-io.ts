import { type Context, GrammyError, type InlineKeyboard } from "grammy";
import { PayoutApiError, type PayoutApiErrorKind } from "#src/api/index.js";
import type { BotDeps, FlowContext, FlowConversation } from "#src/bot/context.js";
import { telegramOnce } from "./telegram-once.ts";
import { isCopy, waitFor } from "./wait.ts";

/**
 * A flow's talking and waiting as one screen object, on the kernel's one wait loop (the payout flow and money
 * requests use it): one "screen" (the bot message carrying the current buttons) is edited in place after a button
 * press or replaced by a new message after typed input (the old one loses its buttons, so nothing can be pressed
 * twice). Side effects go through `call`, which runs once and survives
 * replays: errors come back as plain data (a class does not survive the conversation log).
 *
 * Cost: the conversation log is kept in Redis for the whole flow and the flow is replayed from it on every
 * update. So Telegram calls go through `telegram` (made once; only the message id is logged, not the whole
 * Message the plugin would keep for a call made inside the conversation), and screens are passed as `Lazy`
 * renderers that run inside that call: a replay skips every earlier screen's i18n and formatting.
 */

/** An API failure as the conversation log keeps it (an Error instance does not survive the log). */
export interface ApiFailure {
  kind: PayoutApiErrorKind | "unknown";
  apiMessage?: string;
  retryAfterMs?: number;
  status?: number;
  /** The API may have carried the action out although it failed (see PayoutApiError.outcomeUnknown). */
  outcomeUnknown?: boolean;
}

/** What makes a flow's screens its own. */
export interface FlowScreens {
  /** The flow's callback data: a press with it on the current screen (or a copy of it) is the screen's answer. */
  data: RegExp;
  /** The flow's buttons that keep their own handler when pressed on an older message (a quote card's Confirm). */
  handledOutside?: RegExp;
  /** The toast on any other older button of the flow (an i18n key). */
  staleToast: string;
  /** The flow's name in the log. */
  name: string;
}

type Answer =
  | { kind: "text"; text: string; messageId: number }
  | { kind: "button"; data: string; queryId: string };

interface AskOptions {
  /** Accept typed text (otherwise only this screen's buttons). */
  text?: boolean;
  /** What to say when the user sends something this step cannot take. */
  hint: Lazy<string>;
  /** Buttons outside this screen that count as its own (an expired quote card's "New quote" for this order). */
  alsoTakes?: (data: string) => boolean;
  /** A toast for the pressed button (the press is answered at once either way). */
  toast?: (data: string) => string | undefined;
}

/** A value, or how to make it when it is needed (screens are rendered once, not on every replay). */
export type Lazy<T> = T | (() => T);

export function resolve<T extends string | InlineKeyboard | undefined>(lazy: Lazy<T>): T {
  return typeof lazy === "function" ? lazy() : lazy;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

const NOT_MODIFIED = /message is not modified/i;

/** Where a flow's screen stands: what a flow that goes on as a fresh conversation takes along (flow/continue.ts). */
export interface ScreenState {
  id?: number;
  previous?: number;
  keyboard: boolean;
}

/** What a shown screen leaves in the log: its message id, and whether it now has buttons (absent: unchanged). */
interface ShownScreen {
  id: number;
  keyboard?: boolean;
}

function toFailure(error: unknown): ApiFailure {
  if (error instanceof PayoutApiError) {
    return {
      kind: error.kind,
      ...(error.apiMessage !== undefined ? { apiMessage: error.apiMessage } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.outcomeUnknown ? { outcomeUnknown: true } : {}),
    };
  }
  return { kind: "unknown" };
}

/** Back to an error describeApiError understands (for "unknown", a plain Error: "something went wrong"). */
export function fromFailure(failure: ApiFailure): unknown {
  if (failure.kind === "unknown") return new Error("unexpected failure");
  return new PayoutApiError({
    kind: failure.kind,
    endpoint: "payout",
    detail: failure.apiMessage ?? failure.kind,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...(failure.apiMessage !== undefined ? { apiMessage: failure.apiMessage } : {}),
    ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
  });
}

export class FlowIo {
  /** The bot message whose buttons are live. */
  screenId: number | undefined;
  /**
   * The screen before the current one was sent as a new message. A bot message between the two that carries this
   * flow's buttons can only be a copy of the current screen: one Telegram had when a process died, sent again by
   * the process that handled the update after it.
   */
  private previousScreenId: number | undefined;
  private screenHasKeyboard = false;
  private readonly memos = new Map<string, unknown>();

  constructor(
    readonly conversation: FlowConversation,
    public ctx: FlowContext,
    private readonly screens: FlowScreens,
    /** The screen of the conversation this one goes on from. */
    screen?: ScreenState,
  ) {
    if (screen) {
      this.screenId = screen.id;
      this.previousScreenId = screen.previous;
      this.screenHasKeyboard = screen.keyboard;
    }
  }

  /** Where the screen stands now. */
  get screen(): ScreenState {
    return {
      ...(this.screenId !== undefined ? { id: this.screenId } : {}),
      ...(this.previousScreenId !== undefined ? { previous: this.previousScreenId } : {}),
      keyboard: this.screenHasKeyboard,
    };
  }

  get t() {
    return this.ctx.t;
  }

  get locale() {
    return this.ctx.locale;
  }

  get deps(): BotDeps {
    return this.ctx.deps;
  }

  get chatId(): number {
    return this.ctx.chat?.id ?? this.userId;
  }

  get userId(): number {
    return this.ctx.from?.id ?? 0;
  }

  /** Something every replay needs more than once (label words): made once per replay, not once per use. */
  memo<T>(key: string, make: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, make());
    return this.memos.get(key) as T;
  }

  /** The payout API's clock (what quote deadlines are on), read once per step like any side effect. */
  now(): Promise<number> {
    const deps = this.deps;
    return this.conversation.external(() => deps.now());
  }

  /** Run a side effect once (not again on replay); failures come back as data and are logged here. */
  async call<T>(what: string, task: (deps: BotDeps) => Promise<T>): Promise<Outcome<T>> {
    const deps = this.deps;
    const flow = this.screens.name;
    return this.conversation.external(async (): Promise<Outcome<T>> => {
      try {
        return { ok: true, value: await task(deps) };
      } catch (error) {
        deps.logger.warn({ err: error, step: what }, `${flow} flow call failed`);
        return { ok: false, error: toFailure(error) };
      }
    });
  }

  /**
   * Talk to Telegram once, through a context of the update being handled (same chat, same outbound policy as
   * calls made inside the conversation): the log keeps only what `task` returns, so return ids, not Messages. A
   * failure is thrown again as the same kind of error, on the first run and on every replay.
   */
  telegram<T>(task: (ctx: Context) => Promise<T>): Promise<T> {
    return telegramOnce(this.conversation, task);
  }

  /** A plain message (no screen: its buttons, if any, are not the flow's); returns its message id. */
  reply(text: Lazy<string>, other: Parameters<Context["reply"]>[1] = {}): Promise<number> {
    return this.telegram(async (outside) => (await outside.reply(resolve(text), other)).message_id);
  }

  /**
   * Show a screen: edit the message whose button was just pressed, else send a new message and take the buttons
   * off the previous screen. Returns the screen's message id. The text and keyboard are rendered only when the
   * screen is actually sent (not on replay).
   */
  async show(text: Lazy<string>, keyboard?: Lazy<InlineKeyboard | undefined>): Promise<number> {
    const chatId = this.chatId;
    const pressed = this.ctx.callbackQuery?.message?.message_id;
    const editable = pressed !== undefined && pressed === this.screenId ? pressed : undefined;
    const previous = this.screenId !== undefined && this.screenHasKeyboard ? this.screenId : undefined;
    const shown = await this.telegram(async (outside): Promise<ShownScreen> => {
      const body = resolve(text);
      const markup = resolve(keyboard);
      const other = {
        parse_mode: "HTML" as const,
        link_preview_options: { is_disabled: true },
        ...(markup ? { reply_markup: markup } : {}),
      };
      if (editable !== undefined) {
        try {
          await outside.api.editMessageText(chatId, editable, body, other);
          return { id: editable, keyboard: !!markup };
        } catch (error) {
          if (error instanceof GrammyError && NOT_MODIFIED.test(error.description)) return { id: editable };
          // Too old or deleted: fall through to a new message.
        }
      }
      // Take the buttons off the previous screen (best effort: it may be gone).
      if (previous !== undefined)
        await outside.api.editMessageReplyMarkup(chatId, previous).catch(() => undefined);
      const sent = await outside.reply(body, other);
      return { id: sent.message_id, keyboard: !!markup };
    });
    if (shown.id !== this.screenId) this.previousScreenId = this.screenId;
    this.screenId = shown.id;
    if (shown.keyboard !== undefined) this.screenHasKeyboard = shown.keyboard;
    return shown.id;
  }

  /**
   * A press on a copy of the current screen (see `isCopy`) is that screen's answer: the copy becomes the screen
   * (the next step edits the message the user pressed) and the other copy loses its buttons.
   */
  private async adoptCopy(pressed: number | undefined, data: string): Promise<boolean> {
    const current = this.screenId;
    if (!this.screens.data.test(data) || !isCopy(pressed, { current, previous: this.previousScreenId })) {
      return false;
    }
    const chatId = this.chatId;
    await this.telegram(async (outside) => {
      await outside.api.editMessageReplyMarkup(chatId, current!).catch(() => undefined);
    });
    this.screenId = pressed;
    return true;
  }

  /**
   * Wait for this screen's answer. Stale buttons of the flow get a toast; buttons of other features (and of
   * earlier invoices) go on to their handlers; anything else gets the hint and the flow keeps waiting.
   */
  async ask(options: AskOptions): Promise<Answer> {
    const { data: flowData, handledOutside, staleToast } = this.screens;
    const answer = await waitFor(this.conversation, {
      text: options.text ?? false,
      commands: "hint",
      hint: () => this.reply(options.hint, { parse_mode: "HTML" }),
      press: async (ctx, data, pressed) => {
        const onScreen = pressed === this.screenId || (await this.adoptCopy(pressed, data));
        if (onScreen && (flowData.test(data) || options.alsoTakes?.(data))) {
          const toast = options.toast;
          await this.telegram(async (outside) => {
            const text = toast?.(data);
            await outside.answerCallbackQuery(text ? { text } : undefined);
          });
          return "take";
        }
        if (!flowData.test(data) || handledOutside?.test(data)) return "pass";
        const t = ctx.t;
        await this.telegram(async (outside) => {
          await outside.answerCallbackQuery({ text: t(staleToast) });
        });
        return "refused";
      },
    });
    this.ctx = answer.ctx;
    if (answer.kind === "text") return { kind: "text", text: answer.text, messageId: answer.messageId };
    return { kind: "button", data: answer.data, queryId: answer.ctx.callbackQuery!.id };
  }
}
