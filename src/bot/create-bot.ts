import { conversations } from "@grammyjs/conversations";
import { type Api, Bot, Context, type MiddlewareFn, session, type Transformer } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import { CONVERSATION_KEY_PREFIX, type FirstReads } from "#src/store/index.js";
import { fallbackFeature } from "./account/fallback.ts";
import type { BotContext, BotDeps, FlowContext, SessionData } from "./context.ts";
import { allFeatures, type Feature } from "./features.ts";
import { cancelFeature } from "./flow/cancel.ts";
import { describeError } from "./flow/error-reply.ts";
import { admission, admitMiddleware, type ChatStateKeys } from "./middlewares/admit.ts";
import { i18nMiddleware } from "./middlewares/i18n.ts";
import { identifyMiddleware } from "./middlewares/identify.ts";
import { replyingToChat } from "./telegram-limits.ts";
import {
  answeredQueriesOf,
  conversationTransformers,
  createTelegramTransformers,
  installTransformers,
} from "./telegram-transformers.ts";
import { jsonTransport } from "./telegram-transport.ts";

/**
 * Bump whenever a conversation's steps change: stored flows of the old shape are discarded instead of replayed
 * against new code (users see the menu again rather than a confused flow).
 */
const CONVERSATION_VERSION = 6;
/** Conversation state holds raw user input (account numbers, phones): it expires. */
const CONVERSATION_TTL_SECONDS = 2 * 3600;
const SESSION_TTL_SECONDS = 30 * 24 * 3600;

interface CreateBotOptions {
  token: string;
  /** Skip getMe at start (tests, benchmarks, local mode where the emulator's identity is known). */
  botInfo?: UserFromGetMe;
  /** Outbound transformers shared with the rest of the process; created here when absent. */
  transformers?: Transformer[];
  /** Replace the feature list (benchmarks of the bare floor, focused tests). */
  features?: Feature[];
  /** The HTTP client's fetch (the update inbox's call recorder); grammY's own when absent. */
  fetch?: typeof fetch;
}

/** Key for sessions and conversations (the update inbox queues and leases by the same key: src/updates). */
function chatKey(ctx: Context): string | undefined {
  return ctx.chat?.id.toString() ?? ctx.from?.id.toString();
}

function chatStateKeys(ctx: Context): ChatStateKeys | undefined {
  const key = chatKey(ctx);
  return key === undefined
    ? undefined
    : { sessionKey: key, conversationKey: `${CONVERSATION_KEY_PREFIX}${key}` };
}

/**
 * The reads the bot's admit step makes first for an update (its flood count, user, session, conversation state),
 * for the update inbox to make with the update's lease when it starts the update at once (src/updates/inbox.ts).
 */
export function firstReadsOf(api: Api, deps: BotDeps): (update: Update) => FirstReads | undefined {
  const admissionOf = admission(deps, chatStateKeys);
  return (update) => {
    // A bare context: its sender and chat getters are all admit reads (they use neither the API nor botInfo).
    const admitted = admissionOf(new Context(update, api, undefined as unknown as UserFromGetMe));
    return admitted && deps.store.updateReads.plan(admitted.read, admitted.limit);
  };
}

/** Report each update's type and handling time (seconds). */
function timeUpdates(report: (updateType: string, seconds: number) => void): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const type = Object.keys(ctx.update).find((key) => key !== "update_id") ?? "unknown";
      report(type, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

export function createBot(deps: BotDeps, options: CreateBotOptions): Bot<BotContext> {
  const bot = new Bot<BotContext>(options.token, {
    botInfo: options.botInfo,
    client: { apiRoot: deps.config.telegram.apiRoot, ...(options.fetch ? { fetch: options.fetch } : {}) },
  });
  const transformers = options.transformers ?? createTelegramTransformers({ logger: deps.logger });
  // Innermost, below every other transformer: posts JSON calls without grammY's per-call envelope.
  bot.api.config.use(jsonTransport(bot.api));
  installTransformers(bot.api, transformers);
  const inConversation = conversationTransformers(transformers);
  const answered = answeredQueriesOf(transformers);

  // What the handling sends to the update's own chat is a reply: paced by that chat's budget, not the global one.
  bot.use((ctx, next) => replyingToChat(ctx.chat?.id, next));
  if (deps.hooks?.onUpdateHandled) bot.use(timeUpdates(deps.hooks.onUpdateHandled));

  bot.use(admitMiddleware(deps, chatStateKeys));
  bot.use(identifyMiddleware(deps));
  bot.use(
    session<SessionData, BotContext>({
      initial: () => ({}),
      getSessionKey: chatKey,
      storage: deps.store.sessionStorage<SessionData>(SESSION_TTL_SECONDS),
    }),
  );
  const features = options.features ?? allFeatures(deps);
  const flowExits = features.flatMap((feature) => (feature.onLeave ? [feature.onLeave] : []));
  bot.use((ctx, next) => {
    ctx.flowExits = flowExits;
    return next();
  });
  // Inline queries belong to no chat and no flow: a flow waiting for input must never take one.
  const flows = bot.filter((ctx) => !ctx.inlineQuery && !ctx.chosenInlineResult);
  flows.use(
    conversations<BotContext, FlowContext>({
      storage: {
        type: "key",
        version: CONVERSATION_VERSION,
        prefix: CONVERSATION_KEY_PREFIX,
        getStorageKey: chatKey,
        adapter: deps.store.conversationStorage(CONVERSATION_TTL_SECONDS),
      },
      // Conversation contexts are rebuilt on every replay: re-install language, deps, the size guard and auto-retry
      // (API calls inside a conversation skip bot.api's transformers). Every replayed context of one update reads
      // the user record from the update's read cache (store/update-reads.ts), not from Redis.
      plugins: () => [
        i18nMiddleware<FlowContext>(deps),
        async (ctx, next) => {
          installTransformers(ctx.api, inConversation);
          await next();
        },
      ],
    }),
  );
  flows.use(cancelFeature());

  for (const feature of features)
    for (const conversation of feature.conversations ?? []) flows.use(conversation);
  for (const feature of features) if (feature.composer) bot.use(feature.composer);
  bot.use(fallbackFeature(answered));

  bot.catch(async (error) => {
    const { ctx } = error;
    deps.logger.error({ err: error.error, updateId: ctx.update.update_id }, "update handler failed");
    await describeError(ctx, error.error, answered).catch((replyError) =>
      deps.logger.warn({ err: replyError }, "could not tell the user about the failure"),
    );
  });

  return bot;
}
