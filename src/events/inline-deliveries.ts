import type { Logger } from "#src/log/logger.js";
import type { DeliveryClaim, LockOptions, Outbox } from "#src/store/index.js";
import type { DeliveryProcessor } from "./delivery.ts";
import { type JobQueue, RetryLaterError } from "./queue.ts";
import type { DeliveryJobData } from "./types.ts";

/**
 * Order deliveries run in the process that recorded them, right away, instead of through the delivery queue: a
 * queued job costs ~25 Redis commands and a hop, the delivery itself ~10. The outbox's due set keeps this as safe
 * as the queue: an order stays in it until its cursor reaches the end of its log, and the sweep (src/events/index.ts)
 * hands any that stay overdue (this process died mid-delivery) to the queue. What the queue still does:
 *   - another process holds the order's lock, or Telegram failed: the job retries with backoff (and the due set is
 *     pushed out meanwhile, so the sweep does not add a second job);
 *   - more orders than `concurrency` at once and `backlog` already waiting here: the rest go to the queue.
 * Within this process an order is delivered by one run at a time; a run asked for while one is going makes it look
 * again when it ends, so entries recorded meanwhile are not left behind.
 */
export interface InlineDeliveries {
  /** Deliver the order's outbox now, in this process (never throws; failures go to the queue). `userId`: its owner. */
  soon(orderId: string, userId?: number): void;
  /**
   * Hold a run for the order before its transition is written, so the script that writes it can take the delivery's
   * claim too (none when a run for it is going or every run is busy: then `soon` as usual). Every reservation ends
   * in `start` or `cancel`.
   */
  reserve(orderId: string): Reservation | undefined;
  /** Resolves once every run started so far has ended (shutdown). */
  idle(): Promise<void>;
}

/** A run held for an order whose transition is being written. */
export interface Reservation {
  /** How the transition's script takes the delivery's claim (the lock's options). */
  claim: LockOptions;
  /** Deliver now, with the claim the script took, or claiming as usual when it could not (the lock was held). */
  start(userId: number, claim?: DeliveryClaim): void;
  /** Nothing to deliver after all (or the write failed): the run is given back. */
  cancel(): void;
}

interface InlineDeliveryDeps {
  deliver: Pick<DeliveryProcessor, "process" | "claimOptions" | "deliverClaimed">;
  deliveries: JobQueue<DeliveryJobData>;
  outbox: Outbox;
  logger: Logger;
  concurrency: number;
  /** Orders waiting for a free run before the next goes to the queue. */
  backlog?: number;
  /** How long the due set leaves an order to a queued job before the sweep looks at it again. */
  queuedLeaseMs?: number;
}

/** What a delivery of the order reads: with its owner when the caller knew them (order and owner in one read). */
function jobData(orderId: string, userId: number | undefined): DeliveryJobData {
  return userId === undefined ? { kind: "order", orderId } : { kind: "order", orderId, userId };
}

export function createInlineDeliveries(deps: InlineDeliveryDeps): InlineDeliveries {
  return new InlineRuns(deps);
}

type RunState = { again: boolean; userId: number | undefined };

class InlineRuns implements InlineDeliveries {
  private readonly backlog: number;
  private readonly queuedLeaseMs: number;
  /** Orders being delivered here (with their owner), and whether another look was asked for meanwhile. */
  private readonly running = new Map<string, RunState>();
  /** Orders waiting for a free run, oldest first, with their owner. */
  private readonly waiting = new Map<string, number | undefined>();
  private readonly runs = new Set<Promise<void>>();

  constructor(private readonly deps: InlineDeliveryDeps) {
    this.backlog = deps.backlog ?? 1_000;
    this.queuedLeaseMs = deps.queuedLeaseMs ?? 30 * 60_000;
  }

  soon(orderId: string, userId?: number): void {
    const current = this.running.get(orderId);
    if (current) {
      current.again = true;
      current.userId ??= userId;
    } else if (this.running.size < this.deps.concurrency) this.start(orderId, userId);
    else if (this.waiting.has(orderId) || this.waiting.size < this.backlog)
      this.waiting.set(orderId, this.waiting.get(orderId) ?? userId);
    else this.track(this.toQueue(orderId, userId));
  }

  reserve(orderId: string): Reservation | undefined {
    if (this.running.has(orderId) || this.running.size >= this.deps.concurrency) return undefined;
    const state: RunState = { again: false, userId: undefined };
    this.running.set(orderId, state);
    let ended = false;
    const end = () => {
      if (ended) throw new Error(`the reserved run of ${orderId} was already started or given back`);
      ended = true;
    };
    return {
      claim: this.deps.deliver.claimOptions,
      start: (userId, claim) => {
        end();
        state.userId ??= userId;
        this.track(this.run(orderId, state, claim));
      },
      cancel: () => {
        end();
        // A `soon` for the order while it was held: that run is still owed.
        if (state.again) this.track(this.run(orderId, state));
        else {
          this.running.delete(orderId);
          this.next();
        }
      },
    };
  }

  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs]);
  }

  private async run(orderId: string, state: RunState, claimed?: DeliveryClaim): Promise<void> {
    // After the current turn: the receiver's answer goes out before the delivery's Telegram calls start.
    await new Promise((resolve) => setImmediate(resolve));
    let claim = claimed;
    try {
      do {
        state.again = false;
        if (claim) await this.deps.deliver.deliverClaimed(orderId, claim);
        else
          await this.deps.deliver.process({
            id: `inline-${orderId}`,
            name: "order",
            data: jobData(orderId, state.userId),
            attemptsMade: 0,
          });
        claim = undefined;
      } while (state.again);
    } catch (error) {
      if (!(error instanceof RetryLaterError))
        this.deps.logger.warn({ err: error, orderId }, "delivery failed; queued for retries");
      await this.toQueue(orderId, state.userId);
    } finally {
      this.running.delete(orderId);
      this.next();
    }
  }

  private async toQueue(orderId: string, userId: number | undefined): Promise<void> {
    try {
      await this.deps.deliveries.add("order", jobData(orderId, userId), { removeOnComplete: true });
      // The due set runs on this machine's clock, as its sweep does.
      await this.deps.outbox.deferDue(orderId, Date.now() + this.queuedLeaseMs);
    } catch (error) {
      // Still in the due set: the sweep queues it once it is overdue.
      this.deps.logger.warn({ err: error, orderId }, "delivery could not be queued; the sweep will");
    }
  }

  private track(work: Promise<void>): void {
    this.runs.add(work);
    void work.finally(() => this.runs.delete(work));
  }

  private start(orderId: string, userId: number | undefined): void {
    const state: RunState = { again: false, userId };
    this.running.set(orderId, state);
    this.track(this.run(orderId, state));
  }

  private next(): void {
    for (const [orderId, userId] of this.waiting) {
      if (this.running.size >= this.deps.concurrency) return;
      this.waiting.delete(orderId);
      const current = this.running.get(orderId);
      if (current) current.again = true;
      else this.start(orderId, userId);
    }
  }
}
