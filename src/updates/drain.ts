import type { Update } from "grammy/types";
import type { Counter } from "prom-client";
import type { Logger } from "#src/log/logger.js";
import { type Claim, type HeldWrite, StaleLeaseError, type UpdateRepository } from "#src/store/index.js";
import type { CallRecorder } from "./calls.ts";
import type { InboxState, Lease } from "./chat-slots.ts";

interface DrainOptions {
  repo: UpdateRepository;
  recorder: CallRecorder;
  handle: (update: Update) => Promise<void>;
  logger: Logger;
  state: InboxState;
  /** This process's id: the leases' owner. */
  owner: string;
  /** Hand-outs of one update before it is dropped. */
  maxAttempts: number;
  /** Pause before retrying a failed update, times its attempt. */
  retryMs: number;
  /** Counts the updates given up. */
  dropped: Counter;
  /** Wake the chat again after `ms` (its update failed and stays in the inbox). */
  retry: (chat: string, ms: number) => void;
}

/** How often a handler still running renews its chat's lease (the lease outlives a few missed renewals). */
const RENEW_MS = 30_000;

/**
 * One chat's drain: take the chat's lease (`lease`) and handle its updates until it is drained, a handler fails or
 * the inbox stops. A failure is logged and the chat left to the sweep (record-and-lease reports its own failure to
 * `record`'s caller instead, and hands the drain no claim).
 */
export function createDrain(options: DrainOptions): (chat: string, lease: Lease) => Promise<void> {
  const { repo, owner, logger } = options;
  const handleClaim = claimHandler(options);
  return async (chat, lease) => {
    let claim: Claim | undefined;
    try {
      claim = await lease();
      while (claim) {
        if (options.state.stopping) {
          await repo.release(claim, owner);
          return;
        }
        const writes = await handleClaim(claim);
        if (!writes) {
          await repo.release(claim, owner);
          options.retry(chat, options.retryMs * claim.attempt);
          return;
        }
        claim = await repo.ack(claim, owner, writes);
      }
    } catch (error) {
      if (error instanceof StaleLeaseError) {
        logger.warn(
          { chat, token: error.token },
          "lost the chat's lease while handling; the new holder goes on",
        );
      } else {
        logger.error({ err: error, chat }, "update inbox failed; the sweep will retry the chat");
      }
    }
  };
}

/**
 * Handle one claimed update. Resolves to the chat state the handling wrote, to commit with the acknowledgement
 * (store/held-writes.ts): the update may leave the inbox (handled, or given up after `maxAttempts`). undefined: it
 * failed and stays.
 */
function claimHandler(options: DrainOptions): (claim: Claim) => Promise<HeldWrite[] | undefined> {
  const { repo, owner, logger } = options;
  return async (claim) => {
    if (claim.attempt > options.maxAttempts) {
      options.dropped.inc();
      logger.error(
        { updateId: claim.updateId, chat: claim.chat, attempts: claim.attempt - 1 },
        "update dropped after failing every attempt",
      );
      return [];
    }
    // A handler longer than the lease keeps it while we are alive.
    const renew = setInterval(() => {
      void repo.renew(claim, owner).catch(() => undefined);
    }, RENEW_MS);
    renew.unref();
    try {
      const update = JSON.parse(claim.json) as Update;
      return await repo.holdingStateWrites(() =>
        repo.withFirstReads(claim, () =>
          options.recorder.run(claim.updateId, claim.attempt, () => options.handle(update)),
        ),
      );
    } catch (error) {
      logger.error(
        { err: error, updateId: claim.updateId, chat: claim.chat, attempt: claim.attempt },
        "update handling threw; it stays in the inbox",
      );
      return undefined;
    } finally {
      clearInterval(renew);
    }
  };
}
