import type { SandboxClock, Scheduler } from "#src/standins/sandbox/clock.js";
import type { Speed } from "#src/standins/sandbox/units.js";
import type { TransactionRecord } from "./state.ts";

export const REQUIRED_CONFIRMATIONS = 3;

/** Sandbox-clock time per confirmation, by speed (spec 8: fast 10–30 min, medium 30–60, slow 60+). */
const BLOCK_PACE_MS: Record<Speed, number> = {
  fast: 10 * 60_000,
  medium: 20 * 60_000,
  slow: 60 * 60_000,
};

/**
 * A pretend signet chain. Each broadcast transaction gains one confirmation per `BLOCK_PACE_MS[speed]`
 * of sandbox clock, and every block mined via POST /_sandbox/blocks/mine adds one to all of them.
 * At REQUIRED_CONFIRMATIONS the transaction is confirmed (callback).
 */
export class Chain {
  height = 840_000;
  private readonly watching = new Map<string, { tx: TransactionRecord; onConfirmed: () => void }>();

  constructor(
    private readonly clock: SandboxClock,
    private readonly scheduler: Scheduler,
  ) {}

  track(tx: TransactionRecord, onConfirmed: () => void): void {
    if (!tx.onchain) throw new Error("not an on-chain transaction");
    this.watching.set(tx.id, { tx, onConfirmed });
    this.scheduleTick(tx);
  }

  mine(count: number): string[] {
    this.height += count;
    const confirmed: string[] = [];
    for (const { tx } of [...this.watching.values()]) {
      if (this.addConfirmations(tx, count)) confirmed.push(tx.id);
    }
    return confirmed;
  }

  reset(): void {
    this.watching.clear();
  }

  private scheduleTick(tx: TransactionRecord): void {
    const onchain = tx.onchain;
    if (!onchain) return;
    const due = this.clock.now() + BLOCK_PACE_MS[onchain.speed];
    this.scheduler.schedule(due, `confirmation ${onchain.txid}`, () => {
      if (!this.watching.has(tx.id)) return;
      if (!this.addConfirmations(tx, 1)) this.scheduleTick(tx);
    });
  }

  /** Returns true when this call confirmed the transaction. */
  private addConfirmations(tx: TransactionRecord, count: number): boolean {
    const entry = this.watching.get(tx.id);
    if (!entry || !tx.onchain) return false;
    tx.onchain.confirmations = Math.min(REQUIRED_CONFIRMATIONS, tx.onchain.confirmations + count);
    tx.updatedAt = this.clock.now();
    if (tx.onchain.confirmations < REQUIRED_CONFIRMATIONS) return false;
    this.watching.delete(tx.id);
    tx.onchain.confirmedAt = this.clock.now();
    entry.onConfirmed();
    return true;
  }
}
