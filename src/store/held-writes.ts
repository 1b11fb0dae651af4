import { AsyncLocalStorage } from "node:async_hooks";

/** A chat-state write held for the update's acknowledgement: a value with its lifetime, or a delete. */
export interface HeldWrite {
  key: string;
  /** null: delete the key. */
  value: string | Buffer | null;
  /** Seconds to live; 0: none. */
  ttlSeconds: number;
}

interface HoldScope {
  writes: Map<string, HeldWrite>;
  open: boolean;
}

/**
 * The chat's state an update writes (its session, its conversation) is committed with the update's acknowledgement,
 * in the same script and under the same lease check (store/updates.ts `ack`), instead of on its own just before it:
 * - a process that dies after handling an update and before acknowledging it leaves neither behind, so the update
 *   handled again starts from the state it first started from, and its recorded Telegram calls line up (a
 *   conversation written ahead of its unacknowledged update would take that same update as the answer to its next
 *   question);
 * - a process whose lease was taken over while it handled (it stalled past the lease) writes nothing over the new
 *   holder's state;
 * - one round trip per update fewer.
 *
 * Only while the update inbox handles an update (`collect`): elsewhere (no lease, tests driving the bot directly)
 * storage writes at once. Within the update, a read of a key it wrote sees the held value (`pending`).
 */
export class HeldWrites {
  private readonly scope = new AsyncLocalStorage<HoldScope>();

  /**
   * Run `handle`, holding the state writes made under it: resolves with them (the last write per key) once it has
   * resolved. A handler that throws leaves nothing to commit. Work it left running writes at once afterwards.
   */
  async collect(handle: () => Promise<unknown>): Promise<HeldWrite[]> {
    const scope: HoldScope = { writes: new Map(), open: true };
    try {
      await this.scope.run(scope, handle);
      return [...scope.writes.values()];
    } finally {
      scope.open = false;
    }
  }

  /** Hold `write` for the acknowledgement; false when no update is being handled (the caller writes it now). */
  hold(write: HeldWrite): boolean {
    const scope = this.scope.getStore();
    if (!scope?.open) return false;
    // Map order is first-insertion order; the last value per key is the one committed.
    scope.writes.set(write.key, write);
    return true;
  }

  /** What this update wrote under `key` and has not committed yet. */
  pending(key: string): HeldWrite | undefined {
    const scope = this.scope.getStore();
    return scope?.open ? scope.writes.get(key) : undefined;
  }
}
