import type { Logger } from "#src/log/logger.js";
import { isPendingOnchain, transitionFromApiState, wouldChange } from "#src/orders/mapping.js";
import type { OrderRecord, OrderTransition, Store } from "#src/store/index.js";
import type { IngestJobData } from "./ingest.ts";
import { isNotFound } from "./order-lookup.ts";
import type { JobQueue } from "./queue.ts";
import type { EventsPayoutApi } from "./types.ts";

/**
 * The reconciler: a repeatable tick takes the open orders that are due (`orders:open` scores are "next check"
 * times, first the quote expiry), asks the API what really happened (GET /order, GET /transaction?orderId=) and
 * queues any missed transition on the ingest queue — the same transition + outbox + delivery path as webhooks, so
 * a lost webhook ends exactly like a delivered one. Still-open orders are pushed back with exponential backoff,
 * except on-chain withdrawals waiting for confirmations: no webhook carries the count, so they are looked at every
 * `onchainPollMs` until they succeed or fail (each block reaches the card within seconds). A tick looks for due
 * orders every `stepMs` until the next tick (one ZRANGEBYSCORE a step), so orders are checked when they are due
 * while the tick itself (a BullMQ job, ~60 Redis commands) stays at its slow pace.
 */
export interface ReconcilerOptions {
  /** Orders checked per tick. */
  batchSize: number;
  /** First re-check delay; doubles per check up to maxBackoffMs. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** An unpaid order counts as expired this long after its expiry (clock skew, a payment in flight). */
  expiryGraceMs: number;
  /** Re-check period of an on-chain withdrawal waiting for confirmations. */
  onchainPollMs: number;
  /** How often a tick looks for due orders until its budget (the time to the next tick) ends. */
  stepMs: number;
}

export const DEFAULT_RECONCILER_OPTIONS: ReconcilerOptions = {
  batchSize: 50,
  baseBackoffMs: 15_000,
  maxBackoffMs: 10 * 60_000,
  expiryGraceMs: 30_000,
  onchainPollMs: 2_000,
  stepMs: 500,
};

interface ReconcilerDeps {
  store: Store;
  api: EventsPayoutApi;
  ingest: JobQueue<IngestJobData>;
  logger: Logger;
  now: () => number;
  options: ReconcilerOptions;
}

export type CheckOutcome = "queued" | "unchanged" | "api_unavailable";

interface TickResult {
  checked: number;
  queued: number;
  unavailable: number;
}

export function createReconciler(deps: ReconcilerDeps) {
  const { store, logger, options } = deps;

  let stopping = false;

  /** One tick: the orders due now, then again every `stepMs` until `budgetMs` (the time to the next tick) runs out. */
  async function tick(budgetMs = 0): Promise<TickResult> {
    const deadline = Date.now() + budgetMs;
    const result: TickResult = { checked: 0, queued: 0, unavailable: 0 };
    await pass(deps, check, result);
    while (!stopping && Date.now() + options.stepMs < deadline) {
      await new Promise((resolve) => setTimeout(resolve, options.stepMs));
      await pass(deps, check, result);
    }
    if (result.checked > 0) logger.debug(result, "reconciler tick");
    return result;
  }

  /** Check one order against the API now (also what an ops "re-check" button calls). */
  async function check(order: OrderRecord): Promise<CheckOutcome> {
    let outcome: CheckOutcome = "unchanged";
    if (unconfirmedPayoutPastDeadline(order, deps.now())) {
      // Its invoice was never shown (the user never confirmed), so nothing can be in flight: the quote card flips
      // to "expired" at the deadline without waiting for the API (which may be slow or down).
      await queueTransition(deps, order, { stage: "expired" });
      await reschedule(deps, order);
      return "queued";
    }
    let pendingOnchain = isPendingOnchain(order);
    try {
      const transition = await apiTransition(deps, order);
      if (transition?.stage) {
        pendingOnchain ||= isPendingOnchain({
          kind: order.kind,
          stage: transition.stage,
          confirmations: transition.confirmations ?? order.confirmations,
        });
      }
      if (transition && wouldChange(order, transition)) {
        await queueTransition(deps, order, transition);
        outcome = "queued";
      }
    } catch (error) {
      // API unreachable (or failing): never decide on a guess, look again later. The API client's observer
      // counted the failure (payoutbot_payout_api_errors_total).
      logger.warn({ err: error, orderId: order.orderId }, "reconciler could not check order");
      outcome = "api_unavailable";
    }
    if (pendingOnchain && outcome !== "api_unavailable") {
      // The fast lane: no backoff counter to bump, one ZADD XX (a finished order has left the set and stays out).
      await store.orders.rescheduleOpen(order.orderId, deps.now() + options.onchainPollMs);
    } else {
      await reschedule(deps, order);
    }
    return outcome;
  }

  /** Check now the on-chain withdrawals waiting for confirmations (local mode's `:mine`: a block just appeared). */
  async function checkPendingOnchain(): Promise<number> {
    // They are always due within one poll period, so the next `onchainPollMs` of the schedule holds them all.
    const soon = await store.orders.openOrdersDue(deps.now() + options.onchainPollMs, options.batchSize);
    let checked = 0;
    for (const order of soon.filter(isPendingOnchain)) {
      await check(order);
      checked += 1;
    }
    return checked;
  }

  return {
    tick,
    check,
    checkPendingOnchain,
    /** Shutdown: a tick in its fast loop returns after the current step. */
    stop() {
      stopping = true;
    },
  };
}

/** A payout quote nobody confirmed, past its expiry on the API's clock. */
function unconfirmedPayoutPastDeadline(order: OrderRecord, nowMs: number): boolean {
  return (
    order.kind === "payout" &&
    order.stage === "awaiting_payment" &&
    !order.confirmedAt &&
    nowMs >= Date.parse(order.expiresAt)
  );
}

function notFoundAs<T>(value: T) {
  return (error: unknown): T => {
    if (isNotFound(error)) return value;
    throw error;
  };
}

/** The finding goes to the ingest queue, like a webhook (the ingest stage writes it). */
async function queueTransition(
  deps: ReconcilerDeps,
  order: OrderRecord,
  transition: OrderTransition,
): Promise<void> {
  await deps.ingest.add("reconcile", {
    kind: "reconcile",
    orderId: order.orderId,
    transition,
    source: "reconciler",
    checkedAt: new Date(deps.now()).toISOString(),
  });
  deps.logger.info(
    { orderId: order.orderId, stage: transition.stage },
    "reconciler found a missed transition",
  );
}

/** The next check of an open order, backing off; an unpaid one right after its expiry. */
async function reschedule(deps: ReconcilerDeps, order: OrderRecord): Promise<void> {
  const attempts = await deps.store.reconcileAttempts.next(order.orderId);
  const now = deps.now();
  const delay = Math.min(
    deps.options.baseBackoffMs * 2 ** Math.min(attempts - 1, 20),
    deps.options.maxBackoffMs,
  );
  let next = now + delay;
  const expiry = Date.parse(order.expiresAt) + deps.options.expiryGraceMs + 1_000;
  // An unpaid order is always looked at right after it expires, so the "expired" edit is not late.
  if (order.stage === "awaiting_payment" && expiry > now) next = Math.min(next, expiry);
  // ZADD XX inside: an order that became terminal meanwhile has left the set and stays out.
  await deps.store.orders.rescheduleOpen(order.orderId, next);
}

/** What the API's order and transactions say the order's transition is (none when they agree with it). */
async function apiTransition(deps: ReconcilerDeps, order: OrderRecord): Promise<OrderTransition | undefined> {
  const [apiOrder, transactions] = await Promise.all([
    deps.api.getOrder(order.orderId).catch(notFoundAs(undefined)),
    deps.api.getTransactions({ orderId: order.orderId }).catch(notFoundAs([] as unknown[])),
  ]);
  return transitionFromApiState({
    order,
    apiOrder,
    transactions,
    now: deps.now(),
    expiryGraceMs: deps.options.expiryGraceMs,
  });
}

/** The orders due now, each checked once. */
async function pass(
  deps: ReconcilerDeps,
  check: (order: OrderRecord) => Promise<CheckOutcome>,
  result: TickResult,
): Promise<void> {
  const due = await deps.store.orders.openOrdersDue(deps.now(), deps.options.batchSize);
  for (const order of due) {
    const outcome = await check(order);
    result.checked += 1;
    if (outcome === "queued") result.queued += 1;
    if (outcome === "api_unavailable") result.unavailable += 1;
  }
}
