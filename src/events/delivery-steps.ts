import { GrammyError, HttpError } from "grammy";
import type { LanguageCode, Translator } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import { type OrderMessages, UnreachableUserError, type View } from "#src/orders/messages.js";
import type {
  OrderRecord,
  OrderStage,
  Outbox,
  OutboxEntry,
  PendingEntries,
  ProcessRegistry,
  Store,
  UserRecord,
} from "#src/store/index.js";
import type { Notifier } from "./notifier.ts";
import { type JobQueue, jobIdPart, RetryLaterError } from "./queue.ts";
import { REQUEST_NOTICE_STAGES } from "./request-notices.ts";
import { sendMarked } from "./sending-mark.ts";
import type { DeliveryJobData, OpsAlert, PaymentLinkEvent } from "./types.ts";

/**
 * The steps of one order's delivery (delivery.ts runs them under the order's claim): the card, then each outbox
 * entry's notification, alert and request notice; a user who cannot be reached ends it.
 */
export interface DeliveryDeps {
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
 * The card, once, to the order's current state. Confirmation counts still waiting behind a later state are shown
 * first, one edit each, so the card steps through 1/3, 2/3, 3/3 even when a delivery was late. A quote that expired
 * before the user confirmed it never got a status card: its quote card says so, silently. Returns the order with
 * its card's id.
 */
export async function showCard(
  deps: DeliveryDeps,
  order: OrderRecord,
  entries: PendingEntries["entries"],
  view: View,
): Promise<OrderRecord> {
  const last = entries[entries.length - 1];
  let shown = order;
  if (unconfirmedExpiry(order)) await deps.notifier.showQuoteExpired(order, view);
  else {
    for (const entry of entries) {
      if (entry === last || !isConfirmationStep(entry)) continue;
      const step = await showStatus(deps, atEntry(shown, entry), view);
      // Only the card's id carries over (a new card may have been sent); the state stays the current one.
      shown = { ...shown, statusMessageId: step.statusMessageId };
    }
    shown = await showStatus(deps, shown, view);
  }
  // A confirmed quote that expired: its quote card (a purchase keeps copy buttons for the pay-in account) must not
  // look payable any more.
  if (shown.stage === "expired" && shown.confirmedAt) await deps.notifier.clearQuoteButtons(shown);
  return shown;
}

/** An expired quote its owner never confirmed: no status card, no notification. */
export function unconfirmedExpiry(order: OrderRecord): boolean {
  return order.stage === "expired" && !order.confirmedAt;
}

/**
 * The card through its one sender. Another sender holding it (the confirm flow or the recovery sweep, sending it
 * right now) means waiting for the id it records: the delivery then edits that card instead of sending a second.
 */
async function showStatus(deps: DeliveryDeps, order: OrderRecord, view: View): Promise<OrderRecord> {
  const shown = await deps.messages.showStatus(order, view, { by: "delivery" });
  if (shown === "busy") throw new RetryLaterError(CARD_BUSY_RETRY_MS);
  return shown;
}

/** One outbox entry's notification (unless it was in flight at a crash), its ops alert and its request notice. */
export async function deliverEntry(
  deps: DeliveryDeps,
  order: OrderRecord,
  entry: OutboxEntry,
  at: { view: View; sending: number | undefined },
): Promise<void> {
  if (!entry.notify) return;
  if (!(entry.stage === "expired" && unconfirmedExpiry(order))) {
    if (entry.seq === at.sending) {
      // The delivery before this one died while Telegram had this message: it may be on the user's screen
      // already, and the Bot API cannot tell. Sending it again could show it twice; the card above, edited
      // in place, already shows the stage.
      deps.logger.info(
        { orderId: order.orderId, seq: entry.seq },
        "notification in flight at a crash; not sent again",
      );
      deps.onNotificationNotRepeated?.();
    } else await notifyOnce(deps, order, entry, at.view);
  }
  if (entry.stage === "failed") await queueAlert(deps, failureAlert(order, entry), entry);
  if (order.requestId) await queueRequestNotice(deps, order, entry);
}

/** Blocked or gone: record it, tell ops once, and do not retry (retrying a 403 only burns the rate limit). */
export async function dropUnreachable(
  deps: DeliveryDeps,
  order: OrderRecord,
  last: OutboxEntry,
  error: UnreachableUserError,
): Promise<void> {
  const { orderId, userId } = order;
  deps.logger.info({ orderId, userId }, "user unreachable; notifications dropped");
  await deps.store.users.update(userId, { unreachable: true });
  const at = new Date().toISOString();
  await queueAlert(
    deps,
    { type: "user_unreachable", userId, orderId, description: error.description, at },
    last,
  );
  await deps.outbox.advance(orderId, last.seq);
}

/**
 * Send one stage's notification with a mark set around the call: a process that dies mid-call leaves the mark,
 * and the next delivery does not send it again. A refusal or a request that never reached Telegram clears it. The
 * mark is set when the call leaves, after the outbound pacer's wait (src/events/sending-mark.ts).
 */
async function notifyOnce(
  deps: DeliveryDeps,
  order: OrderRecord,
  entry: OutboxEntry,
  view: View,
): Promise<void> {
  try {
    await sendMarked(
      () => deps.outbox.markSending(order.orderId, entry.seq),
      () => deps.notifier.notify(order, entry.stage, view),
    );
  } catch (error) {
    if (error instanceof GrammyError || error instanceof HttpError || error instanceof UnreachableUserError)
      await deps.outbox.clearSending(order.orderId, entry.seq);
    throw error;
  }
}

/** Alerts are jobs of their own (retried if the hook fails); the id makes a repeated delivery add it once. */
async function queueAlert(deps: DeliveryDeps, alert: OpsAlert, entry: OutboxEntry): Promise<void> {
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
async function queueRequestNotice(
  deps: DeliveryDeps,
  order: { orderId: string },
  entry: OutboxEntry,
): Promise<void> {
  if (!deps.onRequestStage || !REQUEST_NOTICE_STAGES.includes(entry.stage)) return;
  if (entry.stage === "failed" && entry.from === "awaiting_payment") return;
  const orderId = jobIdPart(order.orderId);
  await deps.deliveries.add(
    "request",
    { kind: "request", orderId: order.orderId, stage: entry.stage },
    { jobId: `request-${orderId}-${entry.stage}` },
  );
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
