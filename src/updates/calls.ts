import { AsyncLocalStorage } from "node:async_hooks";
import type { Transformer } from "grammy";
import { BufferedResponse, createTelegramFetch } from "#src/http/telegram-fetch.js";
import type { Logger } from "#src/log/logger.js";
import type { UpdateRepository } from "#src/store/index.js";

/**
 * Exactly-once outgoing Telegram calls per update. While an update is handled, every call that really goes to
 * Telegram is numbered (1, 2, 3… in the order the handler makes them) and its answer is recorded under the update
 * before the handler sees it. When the same update is handled again (its process died before acknowledging it),
 * the calls are made again in the same order: those with a recorded answer get that answer and nothing is sent.
 *
 * The layer is the HTTP client's `fetch` (grammY's `client.fetch`): it sees only real network calls. Calls the
 * conversations plugin answers from its own log, and retries by auto-retry, are each seen exactly as they hit
 * the network, so a replay lines up with the first run. A recorded answer whose method differs from the call
 * being made means the handler took another path this time: from there on every call goes to Telegram.
 *
 * Calls whose repetition has no second effect are numbered but not recorded (a round trip saved per button press
 * and per typed answer): a callback query can be answered once, so answering it again on a re-handled update is
 * refused as "query is too old", which reads as done (below), and the user sees the toast once; a message whose
 * buttons are taken off keeps none, so taking them off again is refused as "message is not modified", which reads
 * as done too.
 *
 * What can still repeat: a call in flight at the moment of the crash (sent, answer not yet recorded), and calls
 * made outside update handling (events notifier, alerts, broadcasts), which have their own guarantees.
 */

/**
 * Calls that, made again, have no second effect: answering a callback query, and taking a message's buttons off
 * (editMessageReplyMarkup without a reply_markup: its JSON body has no other free-form field that could hold the
 * word).
 */
function repeatable(method: string, init: unknown): boolean {
  if (method === "answerCallbackQuery") return true;
  if (method !== "editMessageReplyMarkup") return false;
  const body = (init as { body?: unknown } | undefined)?.body;
  return typeof body === "string" && !body.includes('"reply_markup"');
}

interface Scope {
  updateId: number;
  seq: number;
  /** Answers recorded by an earlier attempt; undefined on a first attempt or once the replay diverged. */
  recorded?: Map<number, string>;
  open: boolean;
  /** Set once this attempt recorded an answer (the first record also sets the hash's lifetime). */
  wrote: boolean;
}

interface RecordedAnswer {
  /** Bot API method. */
  m: string;
  /** HTTP status. */
  s: number;
  /** Response body text. */
  b: string;
}

/**
 * A recorded answer is stored as "<method> <status>\n<body>": the body is already JSON text, and wrapping it in
 * another JSON object meant escaping every quote of it on each call.
 */
function encodeAnswer(answer: RecordedAnswer): string {
  return `${answer.m} ${answer.s}\n${answer.b}`;
}

function decodeAnswer(stored: string): RecordedAnswer {
  const cut = stored.indexOf("\n");
  const head = stored.slice(0, cut);
  const space = head.indexOf(" ");
  return { m: head.slice(0, space), s: Number(head.slice(space + 1)), b: stored.slice(cut + 1) };
}

/** What grammY's client needs of a fetch: the status and the body (it reads `json()`). */
type Fetch = (
  url: string,
  init?: unknown,
) => Promise<{ status: number; text?: () => Promise<string>; json(): Promise<unknown> }>;

/** Telegram's answer to answerCallbackQuery once the query has expired (about 15 s after the press). */
const STALE_QUERY = /query is too old|query ID is invalid/;
/** Telegram's answer to an edit that changes nothing: for a removal of buttons, they are gone already. */
const NOT_MODIFIED = /message is not modified/;

export interface CallRecorder {
  /** `client.fetch` for the bot's Api (and every Api grammY and the conversations plugin derive from it). */
  fetch: typeof fetch;
  /**
   * Installed innermost and outermost on bot.api: the outer one notes the scope of the caller, the inner one
   * re-enters it, because the throttler's queue may run a call from another async context.
   */
  transformers: { outermost: Transformer; innermost: Transformer };
  /** Handle one update inside its scope; `attempt` > 1 loads what an earlier attempt recorded. */
  run<T>(updateId: number, attempt: number, handle: () => Promise<T>): Promise<T>;
}

const DONE = '{"ok":true,"result":true}';

/**
 * Telegram's refusals that mean the call's effect is there already, read as done: an answer to a callback query
 * handled late (after a takeover, or behind a slow update of the chat) can no longer show its toast, which is no
 * reason to fail the step the press asked for; buttons taken off already (by the attempt that died, or never there).
 */
function settleRefusal(
  method: string,
  unrecorded: boolean,
  answer: { status: number; text: string },
  logger: Logger,
  updateId: number,
): { status: number; text: string } {
  if (answer.status !== 400) return answer;
  if (method === "answerCallbackQuery" && STALE_QUERY.test(answer.text)) {
    logger.debug({ updateId }, "callback query too old to answer; going on");
    return { status: 200, text: DONE };
  }
  if (unrecorded && NOT_MODIFIED.test(answer.text)) return { status: 200, text: DONE };
  return answer;
}

/** The answer an earlier attempt recorded for this call, if it made the same call; else the replay stops here. */
function replayed(scope: Scope, seq: number, method: string, logger: Logger): RecordedAnswer | undefined {
  const recorded = scope.recorded?.get(seq);
  if (recorded === undefined) return undefined;
  const answer = decodeAnswer(recorded);
  if (answer.m === method) return answer;
  logger.warn(
    { updateId: scope.updateId, seq, method, recorded: answer.m },
    "handling took another path than the first attempt; later calls go to Telegram",
  );
  scope.recorded = undefined;
  return undefined;
}

/** The fetch that numbers the calls of the update in scope, answers replayed ones and records the others. */
function recordingFetchOf(
  storage: AsyncLocalStorage<Scope>,
  repo: UpdateRepository,
  logger: Logger,
  base: Fetch,
): Fetch {
  return async (url, init) => {
    const scope = storage.getStore();
    if (!scope?.open) return base(url, init);
    scope.seq += 1;
    const seq = scope.seq;
    const method = url.slice(url.lastIndexOf("/") + 1);
    const earlier = replayed(scope, seq, method, logger);
    if (earlier) return new BufferedResponse(earlier.s, earlier.b);
    const response = await base(url, init);
    const unrecorded = repeatable(method, init);
    const { status, text } = settleRefusal(
      method,
      unrecorded,
      {
        status: response.status,
        text: response.text ? await response.text() : JSON.stringify(await response.json()),
      },
      logger,
      scope.updateId,
    );
    if (scope.open && !unrecorded) {
      await repo.recordCall(
        scope.updateId,
        seq,
        encodeAnswer({ m: method, s: status, b: text }),
        !scope.wrote,
      );
      scope.wrote = true;
    }
    return new BufferedResponse(status, text);
  };
}

export function createCallRecorder(
  repo: UpdateRepository,
  logger: Logger,
  base: Fetch = createTelegramFetch() as Fetch,
): CallRecorder {
  const storage = new AsyncLocalStorage<Scope>();
  const byPayload = new WeakMap<object, Scope>();
  const recordingFetch = recordingFetchOf(storage, repo, logger, base);

  return {
    fetch: recordingFetch as unknown as typeof fetch,
    transformers: {
      outermost: (prev, method, payload, signal) => {
        const scope = storage.getStore();
        if (scope && payload && typeof payload === "object") byPayload.set(payload, scope);
        return prev(method, payload, signal);
      },
      innermost: (prev, method, payload, signal) => {
        const scope = payload && typeof payload === "object" ? byPayload.get(payload) : undefined;
        if (!scope || scope === storage.getStore()) return prev(method, payload, signal);
        return storage.run(scope, () => prev(method, payload, signal));
      },
    },
    async run(updateId, attempt, handle) {
      const recorded = attempt > 1 ? await repo.recordedCalls(updateId) : undefined;
      const scope: Scope = {
        updateId,
        seq: 0,
        open: true,
        wrote: false,
        ...(recorded?.size ? { recorded } : {}),
      };
      try {
        return await storage.run(scope, handle);
      } finally {
        scope.open = false;
      }
    },
  };
}
