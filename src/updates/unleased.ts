import type { Update } from "grammy/types";
import type { Logger } from "#src/log/logger.js";
import type { UpdateRepository } from "#src/store/index.js";
import type { CallRecorder } from "./calls.ts";

export interface UnleasedChains {
  /** Handle the update after the chat's earlier ones, then take it out of the inbox. */
  handle(chat: string, update: Update, json: string): void;
  /** The chats' chains still running. */
  inFlight(): Promise<void>[];
}

/**
 * Without leases (UPDATE_LEASE=off, a diagnostic): in-process order per chat only (what grammY's sequentialize
 * gave), each process its own updates, one try each.
 */
export function createUnleasedChains(options: {
  repo: UpdateRepository;
  recorder: CallRecorder;
  handle: (update: Update) => Promise<void>;
  logger: Logger;
}): UnleasedChains {
  const chains = new Map<string, Promise<void>>();
  return {
    handle(chat, update, json) {
      const previous = chains.get(chat) ?? Promise.resolve();
      const next = previous.then(async () => {
        try {
          await options.recorder.run(update.update_id, 1, () => options.handle(update));
        } catch (error) {
          options.logger.error({ err: error, updateId: update.update_id }, "update handling threw");
        }
        await options.repo.remove(chat, update.update_id, json).catch(() => undefined);
      });
      chains.set(chat, next);
      void next.finally(() => {
        if (chains.get(chat) === next) chains.delete(chat);
      });
    },
    inFlight: () => [...chains.values()],
  };
}
