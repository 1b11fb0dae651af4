import type { Update } from "grammy/types";
import { Counter, type Registry } from "prom-client";
import type { Logger } from "#src/log/logger.js";
import type { FirstReads, ProcessRegistry, UpdateRepository } from "#src/store/index.js";
import type { CallRecorder } from "./calls.ts";
import { type ChatSlots, createChatSlots, type InboxState } from "./chat-slots.ts";
import { createDrain } from "./drain.ts";
import { createUnleasedChains } from "./unleased.ts";

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
  const { repo, logger } = options;
  const owner = options.processes.id;
  const useLease = options.lease ?? true;
  const state: InboxState = { running: false, stopping: false };
  const drain = createDrain({
    ...options,
    state,
    owner,
    maxAttempts: options.maxAttempts ?? 5,
    retryMs: options.retryMs ?? 1_000,
    dropped: new Counter({
      name: "payoutbot_updates_dropped_total",
      help: "Telegram updates given up after failing every attempt",
      registers: options.registry ? [options.registry] : [],
    }),
    retry: (chat, ms) => slots.wakeLater(chat, ms),
  });
  const slots = createChatSlots({
    state,
    concurrency: options.concurrency ?? 32,
    acquire: (chat) => repo.acquire(chat, owner),
    drain,
  });
  const unleased = createUnleasedChains(options);
  let stopSweeping: () => void = () => undefined;

  async function sweep(): Promise<void> {
    try {
      slots.offer(await repo.readyChats());
    } catch (error) {
      logger.warn({ err: error }, "update inbox sweep failed");
    }
  }

  return {
    owner,
    async record(updates) {
      const recorded = await Promise.all(
        updates.map((update) => recordOne(update, options, slots, useLease)),
      );
      // Chats started on recording are in hand already: only the others are woken.
      for (const { chat, update, json, fresh } of recorded) {
        if (!fresh) continue;
        if (useLease) slots.wake(chat);
        else if (state.running && !state.stopping) unleased.handle(chat, update, json);
      }
    },
    async start() {
      if (state.running) return;
      state.running = true;
      if (!useLease) return;
      const sweeper = setInterval(() => void sweep(), options.sweepMs ?? 2_000);
      sweeper.unref();
      stopSweeping = () => clearInterval(sweeper);
      await sweep();
    },
    async stop(graceMs = 10_000) {
      if (!state.running || state.stopping) return;
      state.stopping = true;
      stopSweeping();
      const inFlight = [...slots.stop(), ...unleased.inFlight()];
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(inFlight),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      // A lease still held after the grace passes to another process once the shared heartbeat stops (createApp).
    },
  };
}

/**
 * Record one update. When this process would take its chat at once, the update is recorded and the lease taken in
 * one round trip, and the chat is started on that claim; `record` still resolves only once the update is recorded
 * (and rejects if it was not: a failure reaches the caller through `record`, the drain just ends). `fresh`: recorded
 * now (not a redelivery) and not started yet.
 */
async function recordOne(
  update: Update,
  options: InboxOptions,
  slots: ChatSlots,
  useLease: boolean,
): Promise<{ chat: string; update: Update; json: string; fresh: boolean }> {
  const { repo } = options;
  const owner = options.processes.id;
  const chat = chatOfUpdate(update);
  const json = JSON.stringify(update);
  if (useLease && slots.canStart(chat)) {
    const recording = repo.recordAndAcquire(
      chat,
      update.update_id,
      json,
      owner,
      options.firstReads?.(update),
    );
    slots.launch(chat, async () => (await recording.catch(() => undefined))?.claim);
    await recording;
    return { chat, update, json, fresh: false };
  }
  return { chat, update, json, fresh: await repo.record(chat, update.update_id, json) };
}
