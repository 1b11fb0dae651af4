import { intlLocale } from "#src/i18n/index.js";
import { UnreachableUserError, type View } from "#src/orders/messages.js";
import type { DeliveryClaim, LockOptions } from "#src/store/index.js";
import { type DeliveryDeps, deliverEntry, dropUnreachable, showCard } from "./delivery-steps.ts";
import { type QueuedJob, RetryLaterError } from "./queue.ts";
import type { DeliveryJobData } from "./types.ts";

/**
 * The delivery stage: per order, bring the user's chat up to date with the outbox. Under a per-order lock (so two
 * workers never interleave one chat's messages) it edits the status card to the order's current state once, then
 * sends one notification per undelivered stage change in order, moving the outbox cursor after each, so a crash
 * or a retry resumes where it stopped instead of repeating messages (the steps: delivery-steps.ts).
 */

/**
 * An order's delivery: `process` runs a queued (or inline) job, taking the order's claim first; `deliverClaimed` runs
 * a delivery whose claim the script that wrote the order's transition took already (store/orders.ts), and
 * `claimOptions` is what that script takes it with.
 */
export interface DeliveryProcessor {
  process(job: QueuedJob<DeliveryJobData>): Promise<string>;
  deliverClaimed(orderId: string, claim: DeliveryClaim): Promise<string>;
  claimOptions: LockOptions;
}

export function createDeliveryProcessor(deps: DeliveryDeps): DeliveryProcessor {
  async function process(job: QueuedJob<DeliveryJobData>): Promise<string> {
    const data = job.data;
    if (data.kind === "alert") {
      await deps.onAlert?.(data.alert);
      return "alerted";
    }
    if (data.kind === "payment-link") {
      await deps.onPaymentLinkEvent?.(data.event);
      return "handed_over";
    }
    if (data.kind === "request") return (await deps.onRequestStage?.(data.orderId, data.stage)) ?? "no_hook";
    // The lock and what the delivery reads (the outbox after its cursor, the order, its owner) in one round trip.
    const claim = await deps.store.deliveryClaims.claim(data.orderId, data.userId, {
      processes: deps.processes,
    });
    if (!claim) {
      // Someone else is talking to this chat; try again shortly (not counted as a failed attempt).
      throw new RetryLaterError(deps.lockRetryMs ?? 250);
    }
    return deliverClaimed(data.orderId, claim);
  }

  async function deliverClaimed(orderId: string, claim: DeliveryClaim): Promise<string> {
    try {
      return await deliver(deps, orderId, claim);
    } finally {
      await claim.lock.release();
    }
  }

  return {
    process,
    claimOptions: deps.processes ? { processes: deps.processes } : {},
    deliverClaimed,
  };
}

async function deliver(deps: DeliveryDeps, orderId: string, claim: DeliveryClaim): Promise<string> {
  const { outbox } = deps;
  const { lock, pending } = claim;
  const { entries, sending } = pending;
  const last = entries[entries.length - 1];
  if (!last) {
    // Leaves the due set (a run that found nothing left, or a log that expired).
    await outbox.advance(orderId, 0);
    return "up_to_date";
  }
  if (!claim.order) {
    await outbox.advance(orderId, last.seq);
    return "order_gone";
  }
  // Read once with the claim: languageOf gets it rather than reading it again.
  const user = claim.owner;
  if (user?.unreachable) {
    await outbox.advance(orderId, last.seq);
    return "unreachable";
  }
  const language = await deps.languageOf(claim.order.userId, user);
  const view: View = { t: deps.translator.t(language), locale: intlLocale(language) };
  try {
    const order = await showCard(deps, claim.order, entries, view);
    for (const entry of entries) {
      await deliverEntry(deps, order, entry, { view, sending });
      if (entry === last) {
        // Nothing follows the last move: it releases the lock too, in the same round trip.
        await outbox.advance(orderId, entry.seq, lock);
        lock.releasedElsewhere();
      } else await outbox.advance(orderId, entry.seq);
    }
  } catch (error) {
    if (!(error instanceof UnreachableUserError)) throw error;
    await dropUnreachable(deps, claim.order, last, error);
    return "unreachable";
  }
  return "delivered";
}
