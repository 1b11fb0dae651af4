import { AsyncLocalStorage } from "node:async_hooks";
import type { Transformer } from "grammy";

/**
 * A notification's "sending" mark (the outbox cursor's `<cursor>:<seq>`, src/store/outbox.ts) is set as late as the
 * guarantee allows: by a transformer installed innermost on bot.api, once the outbound pacer has let the call go and
 * right before the request leaves. A process that dies while the call waits for its turn leaves no mark, so the next
 * delivery sends the notification; one that dies after the mark does not send it again (it may be on screen).
 */
interface PendingMark {
  set: () => Promise<void>;
  done: boolean;
}

const pending = new AsyncLocalStorage<PendingMark>();

/** Installed innermost (first) on the Api the pipeline sends with: sets the pending mark before the call goes on. */
export const setSendingMark: Transformer = async (prev, method, payload, signal) => {
  const mark = pending.getStore();
  if (mark && !mark.done) {
    await mark.set();
    mark.done = true;
  }
  return prev(method, payload, signal);
};

/** Whether `setSendingMark` is among the Api's transformers (the events pipeline refuses an Api without it). */
export function setsSendingMark(installed: readonly Transformer[]): boolean {
  return installed.includes(setSendingMark);
}

/** Run `send` so that its first Telegram call sets the mark (`set`) just before it leaves. */
export function sendMarked<T>(set: () => Promise<void>, send: () => Promise<T>): Promise<T> {
  return pending.run({ set, done: false }, send);
}
