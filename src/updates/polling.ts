import type { Api } from "grammy";
import type { Update } from "grammy/types";
import type { Logger } from "#src/log/logger.js";
import type { UpdateInbox } from "./inbox.ts";

/** Also the webhook's (setWebhook). chat_member: role changes in the ops group (Telegram sends it only if asked). */
export const ALLOWED_UPDATES = [
  "message",
  "callback_query",
  "my_chat_member",
  "chat_member",
  "inline_query",
  "chosen_inline_result",
] as const;

/**
 * Long polling that loses nothing: a batch is recorded in the inbox before the next getUpdates passes its
 * offset, which is what confirms the batch to Telegram. A process killed between the two leaves the batch
 * unconfirmed: the next process gets it again and the inbox drops the ids it already has.
 */
export interface Poller {
  stop(): Promise<void>;
}

export function startPolling(options: {
  api: Api;
  inbox: UpdateInbox;
  logger: Logger;
  /** Long-poll timeout in seconds (default 25). */
  timeoutSeconds?: number;
}): Poller {
  const { api, inbox, logger } = options;
  const controller = new AbortController();
  let offset: number | undefined;
  let failures = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      controller.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });

  const loop = (async () => {
    while (!controller.signal.aborted) {
      let updates: Update[];
      try {
        updates = await api.getUpdates(
          {
            ...(offset !== undefined ? { offset } : {}),
            limit: 100,
            timeout: options.timeoutSeconds ?? 25,
            allowed_updates: [...ALLOWED_UPDATES],
          },
          // grammY types its signal as abort-controller's; it only listens for "abort", which ours dispatches.
          controller.signal as unknown as Parameters<Api["getUpdates"]>[1],
        );
      } catch (error) {
        if (controller.signal.aborted) break;
        failures += 1;
        logger.warn({ err: error, failures }, "getUpdates failed; polling again shortly");
        await pause(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
        continue;
      }
      failures = 0;
      if (updates.length === 0) continue;
      // Recording must succeed before the offset moves on; until then the batch is asked for again.
      for (;;) {
        try {
          await inbox.record(updates);
          break;
        } catch (error) {
          failures += 1;
          logger.error({ err: error, failures }, "could not record updates; retrying before confirming them");
          await pause(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
          if (controller.signal.aborted) return;
        }
      }
      failures = 0;
      offset = (updates.at(-1)?.update_id ?? 0) + 1;
    }
  })();

  return {
    async stop() {
      controller.abort();
      await loop;
    },
  };
}
