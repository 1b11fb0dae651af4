import { GrammyError, HttpError } from "grammy";
import { intlLocale, type LanguageCode, type Translator } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import { type OrderMessages, UnreachableUserError, type View } from "#src/orders/messages.js";
import type {
  DeliveryClaim,
  LockOptions,
  OrderRecord,
  OrderStage,
  Outbox,
  OutboxEntry,
  ProcessRegistry,
  Store,
  UserRecord,
} from "#src/store/index.js";
import type { Notifier } from "./notifier.ts";
import { type JobQueue, jobIdPart, type QueuedJob, RetryLaterError } from "./queue.ts";
import { REQUEST_NOTICE_STAGES } from "./request-notices.ts";
import { sendMarked } from "./sending-mark.ts";
import type { OpsAlert, PaymentLinkEvent } from "./types.ts";

/**
 * The delivery step: per order, bring the user's chat up to date with the outbox. Under a per-order lock (so two
 * workers never interleave one chat's messages) it edits the status card to the order's current state once, then
 * sends one notification per undelivered stage change in order, moving the outbox cursor after each, so a crash
 * or a retry resumes where it stopped instead of repeating messages.
 */
export type DeliveryJobData =
  /** `userId`: the owner, when the process that queued it knew (the order and its owner are then read at once). */
  | { kind: "order"; orderId: string; userId?: number }
  | { kind: "alert"; alert: OpsAlert }
  | { kind: "payment-link"; event: PaymentLinkEvent }
  | { kind: "request"; orderId: string; stage: OrderStage };

interface DeliveryDeps {
  store: Store;
  outbox: Outbox;
  notifier: Notifier;
  deliveries: JobQueue<DeliveryJobData>;
  translator: Translator;
  /** Given the owner's record when it was just read, so a resolver need not read it again. */
  languageOf: (userId: number, user?: UserRecord) => Promise<LanguageCode>;
  logger: Logger;
  onAlert?: (alert: OpsAlert) => unknown;
  onPaymentLinkEvent?: (event: PaymentLinkEvent) => unknown;
  /** Tells a money request's requester about the payer's order (src/events/request-notices.ts). */
  onRequestStage?: (orderId: string, stage: OrderStage) => Promise<string>;
  /** This process's heartbeat: the order lock names it, and a dead owner's lock is taken over. */
  processes?: ProcessRegistry;
  /** How long a delivery waits before trying again when another worker holds the order's lock. */
  lockRetryMs?: number;
  /** A notification that was in flight when a process died was not sent again (metrics). */
  onNotificationNotRepeated?: () => void;
  now: () => number;
  /** The status card's one sender (src/orders/messages.ts). */
  messages: OrderMessages;
}

/** How soon a delivery whose status card another sender is sending right now looks again. */
const CARD_BUSY_RETRY_MS = 250;

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
  const { store, outbox, notifier, logger } = deps;

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
    const claim = await store.deliveryClaims.claim(data.orderId, data.userId, { processes: deps.processes });
    if (!claim) {
      // Someone else is talking to this chat; try again shortly (not counted as a failed attempt).
      throw new RetryLaterError(deps.lockRetryMs ?? 250);
    }
    return deliverClaimed(data.orderId, claim);
  }

  async function deliverClaimed(orderId: string, claim: DeliveryClaim): Promise<string> {
    try {
      return await deliver(orderId, claim);
    } finally {
      await claim.lock.release();
    }
  }

  async function deliver(orderId: string, claim: DeliveryClaim): Promise<string> {
    const { lock, pending } = claim;
    const { entries, sending } = pending;
    let order = claim.order;
    const last = entries[entries.length - 1];
    if (!last) {
      // Leaves the due set (a run that found nothing left, or a log that expired).
      await outbox.advance(orderId, 0);
      return "up_to_date";
    }
    if (!order) {
      await outbox.advance(orderId, last.seq);
      return "order_gone";
    }
    // Read once with the claim: languageOf gets it rather than reading it again.
    const user = claim.owner;
    if (user?.unreachable) {
      await outbox.advance(orderId, last.seq);
      return "unreachable";
    }
    const language = await deps.languageOf(order.userId, user);
    const view: View = { t: deps.translator.t(language), locale: intlLocale(language) };
    // A quote that expired before the user confirmed it never got a status card: its quote card says so, silently.
    const unconfirmedExpiry = order.stage === "expired" && !order.confirmedAt;
    try {
      if (unconfirmedExpiry) await notifier.showQuoteExpired(order, view);
      else {
        // Confirmation counts still waiting behind a later state are shown first, one edit each, so the card
        // steps through 1/3, 2/3, 3/3 even when a delivery was late (the cursor moves past each as it goes).
        for (const entry of entries) {
          if (entry === last || !isConfirmationStep(entry)) continue;
          const shown = await showStatus(atEntry(order, entry), view);
          // Only the card's id carries over (a new card may have been sent); the state stays the current one.
          order = { ...order, statusMessageId: shown.statusMessageId };
        }
        order = await showStatus(order, view);
      }
      // A confirmed quote that expired: its quote card (a purchase keeps copy buttons for the pay-in account)
      // must not look payable any more.
      if (order.stage === "expired" && order.confirmedAt) await notifier.clearQuoteButtons(order);
      for (const entry of entries) {
        if (entry.notify && !(entry.stage === "expired" && unconfirmedExpiry)) {
          if (entry.seq === sending) {
            // The delivery before this one died while Telegram had this message: it may be on the user's screen
            // already, and the Bot API cannot tell. Sending it again could show it twice; the card above, edited
            // in place, already shows the stage.
            logger.info({ orderId, seq: entry.seq }, "notification in flight at a crash; not sent again");
            deps.onNotificationNotRepeated?.();
          } else await notifyOnce(order, entry, view);
        }
        if (entry.notify && entry.stage === "failed") await queueAlert(failureAlert(order, entry), entry);
        if (entry.notify && order.requestId) await queueRequestNotice(order, entry);
        if (entry === last) {
          // Nothing follows the last move: it releases the lock too, in the same round trip.
          await outbox.advance(orderId, entry.seq, lock);
          lock.releasedElsewhere();
        } else await outbox.advance(orderId, entry.seq);
      }
    } catch (error) {
      if (!(error instanceof UnreachableUserError)) throw error;
      // Blocked or gone: record it, tell ops once, and do not retry (retrying a 403 only burns the rate limit).
      logger.info({ orderId, userId: order.userId }, "user unreachable; notifications dropped");
      await store.users.update(order.userId, { unreachable: true });
      await queueAlert(
        {
          type: "user_unreachable",
          userId: order.userId,
          orderId,
          description: error.description,
          at: new Date().toISOString(),
        },
        last,
      );
      await outbox.advance(orderId, last.seq);
      return "unreachable";
    }
    return "delivered";
  }

  /**
   * The card through its one sender. Another sender holding it (the confirm flow or the recovery sweep, sending it
   * right now) means waiting for the id it records: the delivery then edits that card instead of sending a second.
   */
  async function showStatus(order: OrderRecord, view: View): Promise<OrderRecord> {
    const shown = await deps.messages.showStatus(order, view, { by: "delivery" });
    if (shown === "busy") throw new RetryLaterError(CARD_BUSY_RETRY_MS);
    return shown;
  }

  /**
   * Send one stage's notification with a mark set around the call: a process that dies mid-call leaves the mark,
   * and the next delivery does not send it again. A refusal or a request that never reached Telegram clears it. The
   * mark is set when the call leaves, after the outbound pacer's wait (src/events/sending-mark.ts).
   */
  async function notifyOnce(order: OrderRecord, entry: OutboxEntry, view: View): Promise<void> {
    try {
      await sendMarked(
        () => outbox.markSending(order.orderId, entry.seq),
        () => notifier.notify(order, entry.stage, view),
      );
    } catch (error) {
      if (error instanceof GrammyError || error instanceof HttpError || error instanceof UnreachableUserError)
        await outbox.clearSending(order.orderId, entry.seq);
      throw error;
    }
  }

  /** Alerts are jobs of their own (retried if the hook fails); the id makes a repeated delivery add it once. */
  async function queueAlert(alert: OpsAlert, entry: OutboxEntry): Promise<void> {
    if (!deps.onAlert) return;
    const orderId = jobIdPart("orderId" in alert ? alert.orderId : "none");
    await deps.deliveries.add(
      "alert",
      { kind: "alert", alert },
      { jobId: `alert-${alert.type}-${orderId}-${entry.seq}` },
    );
  }

  /**
   * The requester of a money request hears of the payer's payment and payout in a job of their own (a requester who
   * cannot be reached never holds up the payer's card); the id makes a repeated delivery add it once.
   */
  async function queueRequestNotice(order: { orderId: string }, entry: OutboxEntry): Promise<void> {
    if (!deps.onRequestStage || !REQUEST_NOTICE_STAGES.includes(entry.stage)) return;
    if (entry.stage === "failed" && entry.from === "awaiting_payment") return;
    const orderId = jobIdPart(order.orderId);
    await deps.deliveries.add(
      "request",
      { kind: "request", orderId: order.orderId, stage: entry.stage },
      { jobId: `request-${orderId}-${entry.stage}` },
    );
  }

  return {
    process,
    claimOptions: deps.processes ? { processes: deps.processes } : {},
    deliverClaimed,
  };
}

/** An on-chain count the card shows (payout_sent n/3). */
function isConfirmationStep(entry: OutboxEntry): boolean {
  return entry.stage === "payout_sent" && entry.confirmations !== undefined;
}

/** The order as it was when `entry` was recorded (only what the card shows of an on-chain count). */
function atEntry<T extends { stage: string; confirmations?: number; txid?: string }>(
  order: T,
  entry: OutboxEntry,
): T {
  return {
    ...order,
    stage: entry.stage,
    ...(entry.confirmations === undefined ? {} : { confirmations: entry.confirmations }),
    ...(entry.txid ? { txid: entry.txid } : {}),
  };
}

function failureAlert(
  order: {
    orderId: string;
    userId: number;
    kind: "payout" | "buy";
    corridor: string;
    failureReason?: string;
  },
  entry: OutboxEntry,
): OpsAlert {
  return {
    type: "order_failed",
    orderId: order.orderId,
    userId: order.userId,
    kind: order.kind,
    corridor: order.corridor,
    ...(order.failureReason ? { failureReason: order.failureReason } : {}),
    ...(entry.from ? { previousStage: entry.from } : {}),
    at: entry.at,
  };
}
