import type { Logger } from "#src/log/logger.js";
import type { OrderRecord, Store } from "#src/store/index.js";

/**
 * The payment path's safety net: every order that reached "confirmed" must have its invoice and status card (a
 * payout) or its status card (a buy: the transfer details are on its quote card, shown before Confirm) in front
 * of its owner. The flow sends them right
 * after Confirm and records `deliveredAt`; a process that dies in between leaves the order in
 * `orders:undelivered`. This sweep (at start, then on every reconciler tick) takes the orders confirmed longer
 * than `graceMs` ago that are still there, claims each (two sweeps at once deliver once), hands it to `deliver`
 * (the bot renders and sends; the events pipeline never imports the bot) and records what was sent.
 */
export interface RecoveredMessages {
  invoiceMessageId?: number;
  statusMessageId?: number;
}

/**
 * Sends what the order still lacks: the invoice only while it can be paid, and a status card unless it has one.
 * Returns the ids of the messages sent.
 */
export type DeliverMissing = (order: OrderRecord) => Promise<RecoveredMessages>;

export interface RecoveryOptions {
  /** How long after Confirm the flow is given to deliver by itself. Default 30 s. */
  graceMs: number;
  /** Orders per sweep. Default 20. */
  batchSize: number;
  /** How long one order's claim lasts (covers one delivery). Default 60 s. */
  claimMs: number;
  /** Older confirmations are dropped from the set, not delivered. Default 1 day. */
  maxAgeMs: number;
}

export const DEFAULT_RECOVERY_OPTIONS: RecoveryOptions = {
  graceMs: 30_000,
  batchSize: 20,
  claimMs: 60_000,
  maxAgeMs: 24 * 3600_000,
};

interface RecoveryDeps {
  store: Store;
  deliver: DeliverMissing;
  logger: Logger;
  now: () => number;
  options: RecoveryOptions;
}

type RecoveryOutcome = "delivered" | "already_delivered" | "claimed_elsewhere" | "dropped" | "failed";

export function createRecoverySweep(deps: RecoveryDeps) {
  const { store, logger, options } = deps;

  async function recover(orderId: string): Promise<RecoveryOutcome> {
    const order = await store.orders.get(orderId);
    const confirmedAt = order?.confirmedAt ? Date.parse(order.confirmedAt) : Number.NaN;
    if (!order || order.deliveredAt || !Number.isFinite(confirmedAt)) {
      await store.orders.forgetUndelivered(orderId);
      return order?.deliveredAt ? "already_delivered" : "dropped";
    }
    if (deps.now() - confirmedAt > options.maxAgeMs) {
      await store.orders.forgetUndelivered(orderId);
      return "dropped";
    }
    if (!(await store.orders.claimRecovery(orderId, options.claimMs))) return "claimed_elsewhere";
    // Read again under the claim: the flow (or a sweep that finished just now) may have delivered meanwhile.
    const claimed = await store.orders.get(orderId);
    if (!claimed || claimed.deliveredAt) {
      await store.orders.forgetUndelivered(orderId);
      return "already_delivered";
    }
    try {
      const sent = await deps.deliver(claimed);
      await store.orders.annotate(orderId, { ...sent, deliveredAt: new Date(deps.now()).toISOString() });
      logger.info({ orderId, kind: claimed.kind, ...sent }, "confirmed order's messages recovered");
      return "delivered";
    } catch (error) {
      // Left in the set: the next sweep tries again once the claim lapses.
      logger.warn({ err: error, orderId }, "could not deliver a confirmed order's messages; will retry");
      return "failed";
    }
  }

  return {
    recover,
    async sweep(): Promise<Record<string, RecoveryOutcome>> {
      const ids = await store.orders.undeliveredDue(deps.now() - options.graceMs, options.batchSize);
      const outcomes: Record<string, RecoveryOutcome> = {};
      for (const orderId of ids) outcomes[orderId] = await recover(orderId);
      return outcomes;
    },
  };
}
