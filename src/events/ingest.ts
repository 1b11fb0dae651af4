import { eventHash, eventOrderId, type WebhookEvent } from "#src/api/index.js";
import type { Logger } from "#src/log/logger.js";
import { transactionFacts } from "#src/orders/facts.js";
import {
  confirmationSteps,
  isPendingOnchain,
  paymentEventFacts,
  transactionFits,
  transitionFromPaymentEvent,
} from "#src/orders/mapping.js";
import {
  type DedupeMark,
  isTerminalStage,
  type OrderText,
  type OrderTransition,
  type Outbox,
  type Store,
} from "#src/store/index.js";
import type { InlineDeliveries } from "./inline-deliveries.ts";
import { type EventRefs, referenceOf, resolveOrder } from "./order-lookup.ts";
import type { JobQueue, QueuedJob } from "./queue.ts";
import type { DeliveryJobData, EventsPayoutApi, PaymentLinkEvent, WebhookEnvelope } from "./types.ts";

/**
 * The ingest step: one webhook (run by the receiver before it answers) or queued finding (the reconciler's, or an
 * event that needs an API lookup) → the order it belongs to → a monotonic `transition()` → the notification outbox →
 * a delivery in this process. It only touches Redis (plus a rare API lookup, which a receiver's run leaves to the
 * queue). Runs for one order may overlap (two events, two processes): the transition is a compare-and-set and the
 * outbox never appends a state behind a later one, so the user sees each stage once and in order.
 */
/** Stages that mean the user's payment arrived (a payout or a purchase that got this far was paid). */
const PAID_STAGES: ReadonlySet<string> = new Set(["payout_sent", "completed"]);

export type IngestJobData =
  | { kind: "webhook"; envelope: WebhookEnvelope; receivedAt: string; refs: EventRefs }
  | {
      kind: "reconcile";
      orderId: string;
      transition: OrderTransition;
      source: "reconciler";
      checkedAt: string;
    };

type IngestOutcome = "applied" | "stale" | "no_transition" | "unknown_order" | "payment_link" | "ignored";

interface IngestDeps {
  store: Store;
  outbox: Outbox;
  deliveries: JobQueue<DeliveryJobData>;
  /** Brings the order's chat up to date with its outbox, in this process (src/events/inline-deliveries.ts). */
  inline: Pick<InlineDeliveries, "soon" | "reserve">;
  api: EventsPayoutApi;
  logger: Logger;
  now: () => number;
  /** When an order moves but is not finished, the reconciler looks again after this long (a lost later webhook). */
  followUpMs: number;
  /** An on-chain withdrawal still short of its confirmations is re-checked this soon instead (no webhook counts). */
  onchainPollMs: number;
  /** Whether payment-link traffic has a consumer (otherwise it is logged and dropped). */
  paymentLinkHook: boolean;
}

export function createIngestProcessor(deps: IngestDeps) {
  const { store, logger } = deps;

  /**
   * `inline`: run by the receiver before it answers (no API calls: NeedsQueueError instead); `known`: the text of
   * the order the event names, as the receiver read it (its lookup by id reads nothing); `mark`: the webhook's
   * dedupe mark, set with the outbox record (outcomes `markedBy` says), else left to the receiver.
   */
  async function process(
    job: QueuedJob<IngestJobData>,
    options: { inline?: boolean; known?: OrderText; mark?: DedupeMark } = {},
  ): Promise<IngestOutcome> {
    const data = job.data;
    if (data.kind === "reconcile") {
      return apply(deps, data.orderId, data.transition, "reconciler");
    }
    const { event, data: payload } = data.envelope;
    if (event === "payment_link.settled") return handOver(deps, data.envelope, data.receivedAt);
    if (event !== "payment.received" && event !== "payment.sent") {
      logger.info({ event }, "webhook event without order effect");
      return "ignored";
    }
    const raws = new Map<string, string>();
    const facts = paymentEventFacts(event, payload);
    const order = await resolveOrder(deps, facts, payload, data.refs, raws, !options.inline, options.known);
    // A transaction that shares an order's id or payment hash but is not one of its own (a refund or treasury
    // withdrawal to an invoice someone chose) is handed on like any transaction the bot did not create.
    if (!order || !transactionFits(facts, order)) {
      if (order) logger.warn({ orderId: order.orderId, event }, "event does not fit the order it names");
      return handOver(deps, data.envelope, data.receivedAt);
    }
    const reference = referenceOf(payload);
    if (reference && event === "payment.received") {
      await store.orderReferences.remember(reference, order.orderId);
    }
    const transition = transitionFromPaymentEvent(facts, order);
    if (!transition) return "no_transition";
    return apply(deps, order.orderId, transition, event, raws.get(order.orderId), options.mark);
  }

  return process;
}

/** Whether an ingest run that ended so set the dedupe mark it was given (with its outbox record). */
export function markedBy(outcome: IngestOutcome): boolean {
  return outcome === "applied" || outcome === "stale";
}

/** The order id and quote hash of a validated event (what the receiver queues with it). */
export function webhookEventRefs(event: WebhookEvent): EventRefs {
  const orderId = eventOrderId(event);
  const hash = eventHash(event);
  return { ...(orderId ? { orderId } : {}), ...(hash ? { hash } : {}) };
}

/** The one store call of the stage: the transition with all that rides in its script; then the delivery starts. */
async function apply(
  deps: IngestDeps,
  orderId: string,
  transition: OrderTransition,
  source: string,
  /** The order's text as resolveOrder read it: the transition skips its own first read. */
  known?: string,
  mark?: DedupeMark,
): Promise<IngestOutcome> {
  // The reconciler's follow-up rides in the transition's own script: when an order moves but is not finished, it
  // looks again later (a lost later webhook); an on-chain withdrawal short of its confirmations sooner.
  // The states the user is to see ride in it too (the notification outbox), with the webhook's dedupe mark: a
  // change is never written without them, and a sender's retry is a duplicate exactly once they are recorded.
  // A paid stage reached with "payment received" never shown (both webhooks were lost and the reconciler found the
  // order done) shows that stage first, so every stage that happened reaches the user once and in order. Blocks
  // the check did not see one by one (two mined between polls) are still shown, each in order. The order's own
  // state is recorded even when nothing changed here: a change /status wrote first (it records nothing) still
  // reaches the user (the outbox only appends states the user has not been given).
  // A run of the delivery is held first, so the transition's script takes the delivery's claim as well.
  const reserved = deps.inline.reserve(orderId);
  const result = await deps.store.orders
    .transition(orderId, transition, {
      known,
      ...(reserved ? { claim: reserved.claim } : {}),
      followUpAt: (next) =>
        isTerminalStage(next.stage) || next.stage === "awaiting_payment"
          ? undefined
          : deps.now() + (isPendingOnchain(next) ? deps.onchainPollMs : deps.followUpMs),
      record: {
        states: ({ order, previousConfirmations }) => [
          ...(PAID_STAGES.has(order.stage)
            ? [{ state: { stage: "payment_received" as const }, onlyAfter: "awaiting_payment" as const }]
            : []),
          ...confirmationSteps(previousConfirmations, order).map((state) => ({ state })),
          // A quote its owner cancelled shows nothing more (its card says so already); only a payment does.
          ...(order.stage === "cancelled" ? [] : [{ state: order }]),
        ],
        mark,
      },
    })
    .catch((error: unknown) => {
      reserved?.cancel();
      throw error;
    });
  if (!result) {
    reserved?.cancel();
    deps.logger.warn({ orderId, source }, "transition for an order we do not have");
    return "unknown_order";
  }
  const { order, appended } = result;
  // After the records above: the outbox (and its due set) holds the work, so a crash from here on loses nothing.
  // Nothing new appended: whatever is still undelivered is in the due set already, and its sweep's business.
  if (appended === 0) reserved?.cancel();
  else if (reserved) reserved.start(order.userId, result.claim);
  else deps.inline.soon(orderId, order.userId);
  deps.logger.debug({ orderId, source, stage: order.stage, changed: result.changed }, "order transition");
  return result.changed ? "applied" : "stale";
}

/** Payment-link traffic (and payment events for orders the bot did not create) go to the merchant hook. */
async function handOver(
  deps: IngestDeps,
  envelope: WebhookEnvelope,
  receivedAt: string,
): Promise<IngestOutcome> {
  if (!deps.paymentLinkHook) {
    deps.logger.info({ event: envelope.event }, "webhook for an order the bot does not know");
    return envelope.event === "payment_link.settled" ? "payment_link" : "unknown_order";
  }
  const facts = transactionFacts(
    envelope.event === "payment_link.settled"
      ? (envelope.data as { transaction?: unknown } | undefined)?.transaction
      : envelope.data,
  );
  const handed: PaymentLinkEvent = {
    event: envelope.event,
    data: envelope.data,
    receivedAt,
    ...(facts.orderId ? { orderId: facts.orderId } : {}),
    ...(facts.hash ? { hash: facts.hash } : {}),
  };
  await deps.deliveries.add("payment-link", { kind: "payment-link", event: handed });
  return "payment_link";
}
