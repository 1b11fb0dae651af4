import { GrammyError, type InlineKeyboard } from "grammy";
import { PayoutApiError } from "../../../api/index.ts";
import { REQUOTE_CALLBACK_PATTERN } from "../../../orders/index.ts";
import { PAYOUT_FLOW_DATA } from "../../callback-data/payout.ts";
import type { BotDeps, FlowContext, FlowConversation } from "../../context.ts";
import type { ApiFailure } from "../../services/payout-recipient.ts";

/**
 * The flow's talking and waiting, in one place: one "screen" (the bot message carrying the current buttons) is
 * edited in place after a button press or replaced by a new message after typed input (the old one loses its
 * buttons, so nothing can be pressed twice). Side effects go through `call`, which runs once and survives
 * replays: errors come back as plain data (a class does not survive the conversation log).
 */

export type Answer =
  | { kind: "text"; text: string; messageId: number }
  | { kind: "button"; data: string; queryId: string };

export interface AskOptions {
  /** Accept typed text (otherwise only this screen's buttons). */
  text?: boolean;
  /** What to say when the user sends something this step cannot take. */
  hint: string;
  /** An expired quote card's "New quote" button for this order counts as this screen's button. */
  requoteOrderId?: string;
  /** A toast for the pressed button (the press is answered at once either way). */
  toast?: (data: string) => string | undefined;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

const NOT_MODIFIED = /message is not modified/i;

export function toFailure(error: unknown): ApiFailure {
  if (error instanceof PayoutApiError) {
    return {
      kind: error.kind,
      ...(error.apiMessage !== undefined ? { apiMessage: error.apiMessage } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      ...(error.status !== undefined ? { status: error.status } : {}),
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
  private screenHasKeyboard = false;

  constructor(
    readonly conversation: FlowConversation,
    public ctx: FlowContext,
  ) {}

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

  /** Run a side effect once (not again on replay); failures come back as data and are logged here. */
  async call<T>(what: string, task: (deps: BotDeps) => Promise<T>): Promise<Outcome<T>> {
    const deps = this.deps;
    return this.conversation.external(async (): Promise<Outcome<T>> => {
      try {
        return { ok: true, value: await task(deps) };
      } catch (error) {
        deps.logger.warn({ err: error, step: what }, "payout flow call failed");
        return { ok: false, error: toFailure(error) };
      }
    });
  }

  /**
   * Show a screen: edit the message whose button was just pressed, else send a new message and take the buttons
   * off the previous screen. Returns the screen's message id.
   */
  async show(text: string, keyboard?: InlineKeyboard): Promise<number> {
    const pressed = this.ctx.callbackQuery?.message?.message_id;
    if (pressed !== undefined && pressed === this.screenId) {
      try {
        await this.ctx.api.editMessageText(this.chatId, pressed, text, {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
          ...(keyboard ? { reply_markup: keyboard } : {}),
        });
        this.screenHasKeyboard = !!keyboard;
        return pressed;
      } catch (error) {
        if (error instanceof GrammyError && NOT_MODIFIED.test(error.description)) return pressed;
        // Too old or deleted: fall through to a new message.
      }
    }
    await this.clearScreen();
    const sent = await this.ctx.reply(text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(keyboard ? { reply_markup: keyboard } : {}),
    });
    this.screenId = sent.message_id;
    this.screenHasKeyboard = !!keyboard;
    return sent.message_id;
  }

  /** Take the buttons off the current screen (best effort: it may be gone). */
  async clearScreen(): Promise<void> {
    if (this.screenId === undefined || !this.screenHasKeyboard) return;
    this.screenHasKeyboard = false;
    await this.ctx.api.editMessageReplyMarkup(this.chatId, this.screenId).catch(() => undefined);
  }

  /**
   * Wait for this screen's answer. Stale buttons of the flow get a toast; buttons of other features (and of
   * earlier invoices) go on to their handlers; anything else gets the hint and the flow keeps waiting.
   */
  async ask(options: AskOptions): Promise<Answer> {
    for (;;) {
      const ctx = await this.conversation.wait();
      this.ctx = ctx;
      const query = ctx.callbackQuery;
      if (query) {
        const data = query.data ?? "";
        const onScreen = query.message?.message_id === this.screenId;
        const requote = REQUOTE_CALLBACK_PATTERN.exec(data);
        if (onScreen && (PAYOUT_FLOW_DATA.test(data) || (requote && requote[1] === options.requoteOrderId))) {
          await ctx.answerCallbackQuery(options.toast?.(data) ? { text: options.toast(data) } : undefined);
          return { kind: "button", data, queryId: query.id };
        }
        if (PAYOUT_FLOW_DATA.test(data) && !data.startsWith("po-ok:")) {
          await ctx.answerCallbackQuery({ text: ctx.t("payout:stale") });
          continue;
        }
        return await this.conversation.skip({ next: true });
      }
      const message = ctx.message;
      if (!message) return await this.conversation.skip({ next: true });
      const text = message.text;
      if (options.text && text !== undefined && !text.startsWith("/")) {
        return { kind: "text", text, messageId: message.message_id };
      }
      await ctx.reply(options.hint, { parse_mode: "HTML" });
    }
  }
}
