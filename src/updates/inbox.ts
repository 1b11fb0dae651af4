import type { Update } from "grammy/types";
import { Counter, type Registry } from "prom-client";
import type { Logger } from "#src/log/logger.js";
import {
  type Claim,
  type FirstReads,
  type HeldWrite,
  type ProcessRegistry,
  StaleLeaseError,
  type UpdateRepository,
} from "#src/store/index.js";
import type { CallRecorder } from "./calls.ts";

/**
 * Handles the updates recorded in the Redis inbox (store/updates.ts), whatever their source (long polling or the
 * webhook route). Per chat: one update at a time, in arrival order, across every process (the chat's lease);
 * different chats in parallel, up to `concurrency` per process. An update leaves the inbox only once `handle`
 * resolved (errors bot.catch handles count as handled), and the chat state it wrote (session, conversation) is
 * committed with that acknowledgement (store/held-writes.ts). One that throws is retried with a growing pause and,
 * after `maxAttempts` hand-outs, dropped with an error log line and the `updates_dropped_total` metric: a poison
 * update never blocks its chat for good.
 *
 * Wake-ups are pushed in-process (recording an update starts its chat at once); a slow sweep of the ready set
 * picks up chats whose process died (its ProcessRegistry heartbeat lapsed) and chats another process recorded
 * while this one held the lease.
 */
interface InboxOptions {
  repo: UpdateRepository;
  recorder: CallRecorder;
  handle: (update: Update) => Promise<void>;
  /**
   * The first reads `handle` will make for an update (the bot's admit step: UpdateReads.plan), made with the
   * record-and-acquire that starts it at once instead of in a round trip of their own.
   */
  firstReads?: (update: Update) => FirstReads | undefined;
  logger: Logger;
  registry?: Registry;
  /**
   * This process's heartbeat, started and stopped by the caller (createApp shares one with the events pipeline):
   * leases are taken in its id, and a lease whose owner's heartbeat is gone is taken over.
   */
  processes: ProcessRegistry;
  /** false (UPDATE_LEASE=off, a diagnostic): no cross-process lease; each process handles what it recorded. */
  lease?: boolean;
  /** Chats handled at once by this process (default 32). */
  concurrency?: number;
  /** Hand-outs of one update before it is dropped (default 5). */
  maxAttempts?: number;
  /** Orphan sweep period (default 2 s). */
  sweepMs?: number;
  /** Pause before retrying a failed update, times its attempt (default 1 s). */
  retryMs?: number;
}

export interface UpdateInbox {
  readonly owner: string;
  /** Record updates durably (redeliveries are ignored) and start their chats; resolves once all are recorded. */
  record(updates: readonly Update[]): Promise<void>;
  start(): Promise<void>;
  /** Stop taking work, let handlers in flight finish (up to `graceMs`), give the leases back. */
  stop(graceMs?: number): Promise<void>;
}

/** The chat an update belongs to: the same key sessions and conversations use (chat id, else the sender). */
export function chatOfUpdate(update: Update): string {
  const { update_id: _id, ...rest } = update;
  const inner = Object.values(rest)[0] as
    | {
        chat?: { id: number };
        message?: { chat?: { id: number } };
        from?: { id: number };
        user?: { id: number };
      }
    | undefined;
  const id = inner?.chat?.id ?? inner?.message?.chat?.id ?? inner?.from?.id ?? inner?.user?.id;
  return id === undefined ? "none" : String(id);
}

export function createUpdateInbox(options: InboxOptions): UpdateInbox {
  const { repo, recorder, logger } = options;
  const owner = options.processes.id;
  const useLease = options.lease ?? true;
  const concurrency = options.concurrency ?? 32;
  const maxAttempts = options.maxAttempts ?? 5;
  const sweepMs = options.sweepMs ?? 2_000;
  const retryMs = options.retryMs ?? 1_000;
  const dropped = new Counter({
    name: "payoutbot_updates_dropped_total",
    help: "Telegram updates given up after failing every attempt",
    registers: options.registry ? [options.registry] : [],
  });

  const waiting = new Set<string>();
  const active = new Map<string, Promise<void>>();
  /** Chats woken while being drained: tried once more when the drain ends. */
  const again = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let running = false;
  let stopping = false;
  let stopTimers: () => void = () => undefined;

  const later = (ms: number, task: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, ms);
    timer.unref();
    timers.add(timer);
  };

  function wake(chat: string): void {
    if (!running || stopping) return;
    if (active.has(chat)) again.add(chat);
    else waiting.add(chat);
    pump();
  }

  function pump(): void {
    for (const chat of waiting) {
      if (active.size >= concurrency || stopping) return;
      waiting.delete(chat);
      if (active.has(chat)) continue;
      launch(chat, () => repo.acquire(chat, owner));
    }
  }

  /** A chat this process can start on right now (a free slot, nothing of the chat's in hand). */
  function canStart(chat: string): boolean {
    return running && !stopping && !active.has(chat) && active.size < concurrency;
  }

  function launch(chat: string, lease: () => Promise<Claim | undefined>): void {
    const drained = drain(chat, lease).finally(() => {
      active.delete(chat);
      if (again.delete(chat)) waiting.add(chat);
      pump();
    });
    active.set(chat, drained);
  }

  /**
   * Take the chat's lease (`lease`) and handle its updates until it is drained, a handler fails or we stop. A
   * failure is logged and the chat left to the sweep (record-and-lease reports its own failure to `record`'s caller
   * instead, and hands the drain no claim).
   */
  async function drain(chat: string, lease: () => Promise<Claim | undefined>): Promise<void> {
    let claim: Claim | undefined;
    try {
      claim = await lease();
      while (claim) {
        if (stopping) {
          await repo.release(claim, owner);
          return;
        }
        const writes = await handleClaim(claim);
        if (!writes) {
          await repo.release(claim, owner);
          later(retryMs * claim.attempt, () => wake(chat));
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
  }

  /**
   * The chat state the handling wrote, to commit with the acknowledgement (store/held-writes.ts): the update may
   * leave the inbox (handled, or given up). undefined: it failed and stays.
   */
  async function handleClaim(claim: Claim): Promise<HeldWrite[] | undefined> {
    if (claim.attempt > maxAttempts) {
      dropped.inc();
      logger.error(
        { updateId: claim.updateId, chat: claim.chat, attempts: claim.attempt - 1 },
        "update dropped after failing every attempt",
      );
      return [];
    }
    // A handler longer than the lease keeps it while we are alive.
    const renew = setInterval(() => {
      void repo.renew(claim, owner).catch(() => undefined);
    }, 30_000);
    renew.unref();
    try {
      const update = JSON.parse(claim.json) as Update;
      return await repo.holdingStateWrites(() =>
        repo.withFirstReads(claim, () =>
          recorder.run(claim.updateId, claim.attempt, () => options.handle(update)),
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
  }

  async function sweep(): Promise<void> {
    try {
      for (const chat of await repo.readyChats()) if (!active.has(chat)) waiting.add(chat);
      pump();
    } catch (error) {
      logger.warn({ err: error }, "update inbox sweep failed");
    }
  }

  // Without leases: in-process order per chat only (what sequentialize gave), each process its own updates.
  const chains = new Map<string, Promise<void>>();
  function handleUnleased(chat: string, update: Update, json: string): void {
    const previous = chains.get(chat) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        await recorder.run(update.update_id, 1, () => options.handle(update));
      } catch (error) {
        logger.error({ err: error, updateId: update.update_id }, "update handling threw");
      }
      await repo.remove(chat, update.update_id, json).catch(() => undefined);
    });
    chains.set(chat, next);
    void next.finally(() => {
      if (chains.get(chat) === next) chains.delete(chat);
    });
  }

  return {
    owner,
    async record(updates) {
      const recorded = await Promise.all(
        updates.map(async (update) => {
          const chat = chatOfUpdate(update);
          const json = JSON.stringify(update);
          if (useLease && canStart(chat)) {
            // This process would take the chat at once: record and take the lease in one round trip, and start on
            // the claim. `record` still resolves only once the update is recorded (and rejects if it was not).
            // A failure reaches the caller through `record`; the drain just ends.
            const recording = repo.recordAndAcquire(
              chat,
              update.update_id,
              json,
              owner,
              options.firstReads?.(update),
            );
            launch(chat, async () => (await recording.catch(() => undefined))?.claim);
            await recording;
            return { chat, update, json, fresh: false };
          }
          return { chat, update, json, fresh: await repo.record(chat, update.update_id, json) };
        }),
      );
      // Chats started above are in hand already: only the others are woken.
      for (const { chat, update, json, fresh } of recorded) {
        if (!fresh) continue;
        if (useLease) wake(chat);
        else if (running && !stopping) handleUnleased(chat, update, json);
      }
    },
    async start() {
      if (running) return;
      running = true;
      if (!useLease) return;
      const sweeper = setInterval(() => void sweep(), sweepMs);
      sweeper.unref();
      stopTimers = () => clearInterval(sweeper);
      await sweep();
    },
    async stop(graceMs = 10_000) {
      if (!running || stopping) return;
      stopping = true;
      stopTimers();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      waiting.clear();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...active.values(), ...chains.values()]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      // A lease still held after the grace passes to another process once the shared heartbeat stops (createApp).
    },
  };
}
