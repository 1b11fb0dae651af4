import type { Claim } from "#src/store/index.js";

/** Whether the inbox takes work: started and not stopping. */
export interface InboxState {
  running: boolean;
  stopping: boolean;
}

/** Take a chat's lease (a claim on its first update), then handle its updates until drained. */
export type Lease = () => Promise<Claim | undefined>;

interface SlotOptions {
  state: InboxState;
  /** Chats handled at once by this process. */
  concurrency: number;
  /** Take the chat's lease the ordinary way (when a wake-up, not a record, starts it). */
  acquire: (chat: string) => Promise<Claim | undefined>;
  drain: (chat: string, lease: Lease) => Promise<void>;
}

export interface ChatSlots {
  /** The chat has work: start it when a slot is free, or once more after its drain in progress. */
  wake(chat: string): void;
  /** Wake the chat after `ms` (a failed update's pause); forgotten at `stop`. */
  wakeLater(chat: string, ms: number): void;
  /** Chats the ready set lists: those not in hand wait for a slot. */
  offer(chats: readonly string[]): void;
  /** This process would start on the chat right now (a free slot, nothing of the chat's in hand). */
  canStart(chat: string): boolean;
  /** Start draining the chat through `lease` (the caller checked canStart). */
  launch(chat: string, lease: Lease): void;
  /** Forget what waits (and the pending wake-ups); the drains in progress, to wait for. */
  stop(): Promise<void>[];
}

/**
 * The chats this process is draining (one drain per chat, at most `concurrency` at once) and those waiting for a
 * slot. A chat woken while it is drained is tried once more when the drain ends: the wake-up may name an update the
 * drain had already passed by.
 */
export function createChatSlots(options: SlotOptions): ChatSlots {
  const { state, concurrency } = options;
  const waiting = new Set<string>();
  const active = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();

  function pump(): void {
    for (const chat of waiting) {
      if (active.size >= concurrency || state.stopping) return;
      waiting.delete(chat);
      if (active.has(chat)) continue;
      launch(chat, () => options.acquire(chat));
    }
  }

  function launch(chat: string, lease: Lease): void {
    const drained = options.drain(chat, lease).finally(() => {
      active.delete(chat);
      if (again.delete(chat)) waiting.add(chat);
      pump();
    });
    active.set(chat, drained);
  }

  function wake(chat: string): void {
    if (!state.running || state.stopping) return;
    if (active.has(chat)) again.add(chat);
    else waiting.add(chat);
    pump();
  }

  return {
    wake,
    wakeLater(chat, ms) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        wake(chat);
      }, ms);
      timer.unref();
      timers.add(timer);
    },
    offer(chats) {
      for (const chat of chats) if (!active.has(chat)) waiting.add(chat);
      pump();
    },
    canStart: (chat) => state.running && !state.stopping && !active.has(chat) && active.size < concurrency,
    launch,
    stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      waiting.clear();
      return [...active.values()];
    },
  };
}
