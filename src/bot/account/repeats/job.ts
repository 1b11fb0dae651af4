import { type Api, GrammyError } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import { intlLocale, type LanguageCode } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import type { Repeat, RepeatSnapshot } from "#src/store/index.js";
import { dueCardKeyboard, dueCardText, nextDueAt, scheduleOf, summaryText, type View } from "./render.ts";
import { catchUp, dueAt } from "./schedule.ts";

interface RepeatsJobDeps {
  deps: Pick<BotDeps, "store" | "translator" | "now">;
  /** bot.api: the outbound policy (throttler, auto-retry, size guard) applies. */
  telegram: Api;
  languageOf: (userId: number) => Promise<LanguageCode>;
  logger: Logger;
  /** Repeats looked at per run (the rest wait for the next tick, soonest first). Default 50. */
  batchSize?: number;
}

type RepeatOutcome = "sent" | "not_due" | "claimed_elsewhere" | "gone" | "recipient_gone";

/**
 * The due job, run after every reconciler tick (one process at a time runs the tick; the claim below makes it
 * safe even when two run at once). For each repeat due on the API's clock: ONE card for the latest occurrence
 * already due — earlier ones missed while the bot was down or the clock jumped are dropped — and the schedule moves
 * to the first date still ahead. Moving the schedule is the claim: a compare-and-set of the record read, so of two
 * processes looking at one occurrence exactly one sends its card. The card is sent after the claim and is not sent
 * again if that fails (at most one card per occurrence; a lost card costs one reminder, never a payment).
 */
export function createRepeatsJob(input: RepeatsJobDeps) {
  const { deps, logger } = input;
  const handle = (id: string) => handleRepeat(input, id);
  return {
    handle,
    /** Every repeat due now (up to the batch size); returns how many cards went out. */
    async sendDue(): Promise<number> {
      const ids = await deps.store.repeats.due(deps.now(), input.batchSize ?? 50);
      let sent = 0;
      for (const id of ids) {
        try {
          if ((await handle(id)) === "sent") sent += 1;
        } catch (error) {
          logger.warn({ err: error, repeatId: id }, "repeat due check failed; the next tick tries again");
        }
      }
      return sent;
    },
  };
}

async function viewFor(input: RepeatsJobDeps, userId: number): Promise<View> {
  const language = await input.languageOf(userId);
  return { t: input.deps.translator.t(language), locale: intlLocale(language) };
}

/** One repeat looked at: its card sent when due (after the claim), or why not. */
async function handleRepeat(input: RepeatsJobDeps, id: string): Promise<RepeatOutcome> {
  const { deps, logger } = input;
  const { store } = deps;
  const snapshot = await store.repeats.read(id);
  if (!snapshot) {
    await store.repeats.unschedule(id);
    return "gone";
  }
  const { repeat } = snapshot;
  const schedule = scheduleOf(repeat);
  const now = deps.now();
  const step = repeat.paused ? undefined : catchUp(schedule, repeat.next, now);
  if (!step) {
    // Scored early (or paused): put it where its record says, unless the record changed meanwhile.
    await store.repeats.replace(snapshot, repeat, repeat.paused ? undefined : nextDueAt(repeat));
    return "not_due";
  }
  if (!(await store.recipients.get(repeat.userId, repeat.recipientId))) return recipientGone(input, snapshot);
  const claimed: Repeat = { ...repeat, next: step.next, lastCard: { n: step.send } };
  if (!(await store.repeats.replace(snapshot, claimed, dueAt(schedule, step.next))))
    return "claimed_elsewhere";
  if (step.missed > 0)
    logger.info({ repeatId: id, missed: step.missed }, "repeat caught up: missed dates dropped");
  await sendDueCard(input, id, claimed, step);
  return "sent";
}

/** The claimed occurrence's card; its message id kept for the card's buttons. Sent once: a failure is not retried. */
async function sendDueCard(
  input: RepeatsJobDeps,
  id: string,
  claimed: Repeat,
  step: { send: number; missed: number; next: number },
): Promise<void> {
  const { deps, telegram, logger } = input;
  const { store } = deps;
  const schedule = scheduleOf(claimed);
  const view = await viewFor(input, claimed.userId);
  const text = dueCardText(view, claimed, {
    dueAt: dueAt(schedule, step.send),
    missed: step.missed,
    nextAt: dueAt(schedule, step.next),
  });
  try {
    const message = await telegram.sendMessage(claimed.chatId, text, {
      parse_mode: "HTML",
      reply_markup: dueCardKeyboard(view, claimed),
    });
    await store.repeats.update(id, (current) =>
      current.lastCard?.n === step.send && current.lastCard.messageId === undefined
        ? {
            repeat: { ...current, lastCard: { n: step.send, messageId: message.message_id } },
            dueAt: current.paused ? undefined : nextDueAt(current),
          }
        : undefined,
    );
  } catch (error) {
    if (error instanceof GrammyError && error.error_code === 403) {
      // Blocked or gone: stop knocking every period; /repeats (after they come back) resumes it.
      await store.repeats.update(id, (current) =>
        current.paused ? undefined : { repeat: { ...current, paused: true }, dueAt: undefined },
      );
      logger.info({ repeatId: id }, "repeat paused: its owner cannot be reached");
    } else {
      logger.warn({ err: error, repeatId: id, occurrence: step.send }, "could not send a repeat's due card");
    }
  }
}

async function recipientGone(input: RepeatsJobDeps, snapshot: RepeatSnapshot): Promise<RepeatOutcome> {
  const { deps, telegram, logger } = input;
  const { repeat } = snapshot;
  // Claim it off the schedule first, so only one process says so; then forget it.
  if (!(await deps.store.repeats.replace(snapshot, { ...repeat, paused: true }, undefined)))
    return "claimed_elsewhere";
  await deps.store.repeats.remove(repeat);
  const view = await viewFor(input, repeat.userId);
  await telegram
    .sendMessage(repeat.chatId, view.t("repeats:recipient_gone", { summary: summaryText(view, repeat) }), {
      parse_mode: "HTML",
    })
    .catch((error: unknown) =>
      logger.warn({ err: error, repeatId: repeat.id }, "could not tell about a stopped repeat"),
    );
  return "recipient_gone";
}
