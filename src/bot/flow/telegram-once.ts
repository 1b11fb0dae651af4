import { Api, Context, GrammyError, HttpError, type Transformer } from "grammy";
import type { ResponseParameters } from "grammy/types";
import type { BotContext, FlowConversation } from "#src/bot/context.js";
import { conversationTransformers, installTransformers } from "#src/bot/telegram-transformers.js";
import { jsonTransport } from "#src/bot/telegram-transport.js";

/**
 * Telegram calls made once from a conversation, logging only what the caller keeps. A call made inside a
 * conversation (ctx.reply, ctx.api.*) is logged with Telegram's whole answer (a Message with its text, keyboard
 * and both users: ~1 KB) and replayed through the transformers on every later update; inside
 * `conversation.external` the call runs once and the log keeps the task's return value (return ids).
 */

/** A failed Telegram call as the conversation log keeps it (an Error instance does not survive the log). */
type TelegramFailure =
  | { api: { method: string; error_code: number; description: string; parameters?: ResponseParameters } }
  | { http: string };

function toTelegramFailure(error: unknown): TelegramFailure {
  if (error instanceof GrammyError) {
    const { method, error_code, description, parameters } = error;
    return { api: { method, error_code, description, ...(parameters ? { parameters } : {}) } };
  }
  return { http: error instanceof Error ? error.message : String(error) };
}

/** The same error class the call threw the first time (bot.catch and `show` tell them apart). */
function fromTelegramFailure(failure: TelegramFailure): Error {
  if ("api" in failure) {
    const { method, ...rest } = failure.api;
    return new GrammyError(
      `Call to '${method}' failed! (${rest.error_code}: ${rest.description})`,
      { ok: false, ...rest },
      method,
      {},
    );
  }
  return new HttpError(failure.http, new Error(failure.http));
}

/**
 * An Api with the in-conversation outbound policy (the transformers create-bot installs on conversation
 * contexts, e.g. no per-chat throttling), made once per bot: grammY gives every update's Api the bot's client
 * options object and transformers, so that is the key.
 */
const flowApis = new WeakMap<object, { token: string; installed: Transformer[]; api: Api }>();

function flowApi(outside: Api): Api {
  const installed = outside.config.installedTransformers();
  const key = outside.options;
  const known = key ? flowApis.get(key) : undefined;
  if (
    known?.token === outside.token &&
    known.installed.length === installed.length &&
    known.installed.every((transformer, index) => transformer === installed[index])
  ) {
    return known.api;
  }
  const api = new Api(outside.token, outside.options);
  api.config.use(jsonTransport(api));
  installTransformers(api, conversationTransformers(installed));
  if (key) flowApis.set(key, { token: outside.token, installed, api });
  return api;
}

/** The update being handled, on that Api (one context per update). */
const flowContexts = new WeakMap<BotContext, Context>();

function flowContext(outside: BotContext): Context {
  let ctx = flowContexts.get(outside);
  if (!ctx) {
    ctx = new Context(outside.update, flowApi(outside.api), outside.me);
    flowContexts.set(outside, ctx);
  }
  return ctx;
}

/**
 * Run `task` once with a context of the update being handled — same update, so `reply` and
 * `answerCallbackQuery` behave as on the conversation's own context, and the same outbound policy. A failure is
 * thrown again as the same kind of error (GrammyError / HttpError) on the first run and on every replay.
 */
export function telegramOnce<T>(
  conversation: Pick<FlowConversation, "external">,
  task: (ctx: Context) => Promise<T>,
): Promise<T> {
  return conversation.external({
    task: (outside) => task(flowContext(outside)),
    beforeStoreError: toTelegramFailure,
    afterLoadError: fromTelegramFailure,
  });
}
