import type { Redis } from "ioredis";
import { AlertRepository } from "./alerts.ts";
import { ApprovalRepository } from "./approvals.ts";
import { AuditLog } from "./audit.ts";
import { BroadcastRepository } from "./broadcasts.ts";
import { BuyMarkRepository } from "./buy-marks.ts";
import { CacheRepository } from "./caches.ts";
import { CompressedRedisStorage } from "./compressed-storage.ts";
import { DeliveryClaims } from "./delivery-claims.ts";
import { HeldWrites } from "./held-writes.ts";
import { OnceRepository } from "./idempotency.ts";
import { MerchantRepository } from "./merchants.ts";
import { OrderReferences } from "./order-references.ts";
import { OrderRepository } from "./orders.ts";
import { Outbox } from "./outbox.ts";
import { PaymentLinkRepository } from "./payment-links.ts";
import { QuoteBudget } from "./quote-budget.ts";
import { RateAlertRepository } from "./rate-alerts.ts";
import { RecipientRepository } from "./recipients.ts";
import { ReconcileAttempts } from "./reconcile-attempts.ts";
import { RefundRepository } from "./refunds.ts";
import { RepeatRepository } from "./repeats.ts";
import { RequestRepository } from "./requests.ts";
import { SessionStorage } from "./session-storage.ts";
import { SETTINGS_READ_AHEAD, SettingsRepository } from "./settings.ts";
import { StatementRepository } from "./statements.ts";
import { StatsRepository } from "./stats.ts";
import { StatusCards } from "./status-cards.ts";
import { UpdateReads } from "./update-reads.ts";
import { UpdateRepository } from "./updates.ts";
import { UserRepository } from "./users.ts";
import { EventDeduper } from "./webhook-dedupe.ts";

export * from "./alerts.ts";
export * from "./approval-record.ts";
export * from "./approvals.ts";
export * from "./audit.ts";
export * from "./broadcasts.ts";
export * from "./buy-marks.ts";
export * from "./caches.ts";
export * from "./claims.ts";
export * from "./delivery-claim.ts";
export * from "./delivery-claims.ts";
export * from "./held-writes.ts";
export * from "./idempotency.ts";
export * from "./keys.ts";
export * from "./locks.ts";
export * from "./merchants.ts";
export * from "./order-record.ts";
export * from "./order-references.ts";
export * from "./orders.ts";
export * from "./outbox.ts";
export * from "./payment-links.ts";
export * from "./processes.ts";
export * from "./queue-names.ts";
export * from "./quote-budget.ts";
export * from "./rate-alerts.ts";
export * from "./recipients.ts";
export * from "./reconcile-attempts.ts";
export * from "./refunds.ts";
export * from "./repeats.ts";
export * from "./requests.ts";
export * from "./script.ts";
export * from "./session-storage.ts";
export * from "./settings.ts";
export * from "./statements.ts";
export * from "./stats.ts";
export * from "./status-card-claim.ts";
export * from "./status-cards.ts";
export * from "./update-reads.ts";
export * from "./updates.ts";
export * from "./user-record.ts";
export * from "./users.ts";
export * from "./webhook-dedupe.ts";

export interface Store {
  users: UserRepository;
  orders: OrderRepository;
  recipients: RecipientRepository;
  audit: AuditLog;
  merchants: MerchantRepository;
  paymentLinks: PaymentLinkRepository;
  approvals: ApprovalRepository;
  refunds: RefundRepository;
  /** Money requests (src/bot/payout/requests). */
  requests: RequestRepository;
  repeats: RepeatRepository;
  /** Each user's budget of quotes (open at once, asked for per window), taken before the API is asked. */
  quoteBudget: QuoteBudget;
  settings: SettingsRepository;
  rateAlerts: RateAlertRepository;
  stats: StatsRepository;
  /** Order statements (/history's export): the one running per user, and a period's orders in pages. */
  statements: StatementRepository;
  caches: CacheRepository;
  buyMarks: BuyMarkRepository;
  alerts: AlertRepository;
  broadcasts: BroadcastRepository;
  /** The durable Telegram update inbox (src/updates). */
  updates: UpdateRepository;
  /** Money actions run at most once (runOnce). */
  once: OnceRepository;
  /** What every update reads first (flood control, user, session, conversation), and the update's read cache. */
  updateReads: UpdateReads;
  /** grammY session storage (small UI state per chat). */
  sessionStorage<T>(ttlSeconds: number): SessionStorage<T>;
  /** Conversation (flow) state, deflated. */
  conversationStorage<T>(ttlSeconds: number): CompressedRedisStorage<T>;
  /** The events pipeline: the notification outbox per order. */
  outbox: Outbox;
  /** Webhooks already queued (the receiver's dedupe). */
  webhookDedupe: EventDeduper;
  /** An order's delivery taken (one at a time per order's chat) with what it reads, in one round trip. */
  deliveryClaims: DeliveryClaims;
  /** An order's one status card: who may send it, and its id once sent (src/orders/messages.ts uses it). */
  statusCards: StatusCards;
  /** KES references → orders. */
  orderReferences: OrderReferences;
  /** The reconciler's backoff per open order. */
  reconcileAttempts: ReconcileAttempts;
  /** Whether Redis answers (/health). */
  ping(): Promise<unknown>;
}

/** `now`: the app's clock (the payout API's, `BotDeps.now`), which orders are stamped with. */
export function createStore(redis: Redis, now: () => number = Date.now): Store {
  const updateReads = new UpdateReads(redis, SETTINGS_READ_AHEAD);
  const heldWrites = new HeldWrites();
  const users = new UserRepository(redis, updateReads);
  const outbox = new Outbox(redis);
  const orders = new OrderRepository(redis, updateReads, outbox, now);
  return {
    users,
    orders,
    recipients: new RecipientRepository(redis),
    audit: new AuditLog(redis),
    merchants: new MerchantRepository(redis, users),
    paymentLinks: new PaymentLinkRepository(redis),
    approvals: new ApprovalRepository(redis),
    refunds: new RefundRepository(redis),
    requests: new RequestRepository(redis),
    repeats: new RepeatRepository(redis),
    quoteBudget: new QuoteBudget(redis),
    settings: new SettingsRepository(redis, updateReads),
    rateAlerts: new RateAlertRepository(redis),
    stats: new StatsRepository(redis, orders),
    statements: new StatementRepository(redis, orders),
    caches: new CacheRepository(redis),
    buyMarks: new BuyMarkRepository(redis),
    alerts: new AlertRepository(redis),
    broadcasts: new BroadcastRepository(redis),
    updates: new UpdateRepository(redis, heldWrites, undefined, updateReads),
    once: new OnceRepository(redis),
    updateReads,
    sessionStorage: (ttlSeconds) => new SessionStorage(redis, ttlSeconds, updateReads, heldWrites),
    conversationStorage: (ttlSeconds) =>
      new CompressedRedisStorage(redis, ttlSeconds, updateReads, heldWrites),
    outbox,
    webhookDedupe: new EventDeduper(redis),
    deliveryClaims: new DeliveryClaims(redis, outbox, orders, users),
    statusCards: new StatusCards(orders, now),
    orderReferences: new OrderReferences(redis),
    reconcileAttempts: new ReconcileAttempts(redis),
    ping: () => redis.ping(),
  };
}
