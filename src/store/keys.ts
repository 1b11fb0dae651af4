/**
 * Every Redis key the store writes, in one place (docs/redis.md lists them); the events pipeline's BullMQ
 * queues are named beside them (src/store/queue-names.ts). Nothing outside src/store builds a key: callers name what they
 * want through a repository method (test/unit/architecture.test.ts holds that true).
 */

/**
 * A chat's conversation state lives under this prefix and the chat key (the grammY conversations plugin appends the
 * chat key itself; a chat's session lives under the bare chat key, the plugin's default).
 */
export const CONVERSATION_KEY_PREFIX = "conv:";

export const keys = {
  user: (userId: number) => `user:${userId}`,
  usersAll: () => "users:all",
  usersByUsername: () => "users:byusername",
  order: (orderId: string) => `order:${orderId}`,
  orderByHash: (hash: string) => `order:byhash:${hash}`,
  orderByQuote: (quoteId: string) => `order:byquote:${quoteId}`,
  userOrders: (userId: number) => `user:${userId}:orders`,
  /** The user's one order statement being made (/history's export): a random token while it runs. */
  userStatement: (userId: number) => `user:${userId}:statement`,
  ordersOpen: () => "orders:open",
  ordersAll: () => "orders:all",
  /** Orders that ended unpaid, scored by when their record and every index entry are dropped (ms, this host's clock). */
  ordersRetiring: () => "orders:retiring",
  /** The quote budget (store/quote-budget.ts): quotes asked for lately, member the action, scored by when (API ms). */
  userQuotesAsked: (userId: number) => `user:${userId}:quotes:asked`,
  /** The quote budget: the user's unpaid quotes still open, scored by expiry (API ms). */
  userQuotesOpen: (userId: number) => `user:${userId}:quotes:open`,
  /** Confirmed orders whose invoice / status card is not yet known to be delivered, by confirmation time. */
  ordersUndelivered: () => "orders:undelivered",
  /** Short claim of the recovery sweep on one order (one delivery even with sweeps running at once). */
  orderRecovery: (orderId: string) => `order:recovery:${orderId}`,
  recipients: (userId: number) => `user:${userId}:recipients`,
  recipientByToken: (token: string) => `recipient:token:${token}`,
  /** A money request (its token is the id): who asks for what, to which verified beneficiary. */
  moneyRequest: (token: string) => `request:${token}`,
  /** The request's state: open, pending|<orderId>|<hold until ms>, paid|<orderId>, cancelled. */
  moneyRequestState: (token: string) => `request:${token}:state`,
  /** Stages the requester has been told about (notices sent at most once each). */
  moneyRequestTold: (token: string) => `request:${token}:told`,
  /** Held while the requester's notices are being sent (one teller at a time; store/requests.ts `holdTelling`). */
  moneyRequestTelling: (token: string) => `request:${token}:telling`,
  /** The message id of the requester's card of a request (edited to "paid" once it is paid). */
  moneyRequestCard: (token: string) => `request:${token}:card`,
  /** A user's requests by creation time (/requests, the inline card, the open-request cap). */
  userRequests: (userId: number) => `user:${userId}:requests`,
  /** A repeat send (JSON), the user's repeats, and the active ones by their next due time (API clock, ms). */
  repeat: (id: string) => `repeat:${id}`,
  userRepeats: (userId: number) => `user:${userId}:repeats`,
  repeatsDue: () => "repeats:due",
  audit: () => "audit",
  /** The maintenance switch and the daily payout limits (ops' settings, read ahead by every update). */
  settingsMaintenance: () => "settings:maintenance",
  settingsDailyLimits: () => "settings:daily-limits",
  /** Approved merchants' ids (/merchants). */
  merchantsAll: () => "merchants:all",
  /** A payment link by its paymentRef, a merchant's links, and the links not yet settled. */
  paymentLink: (ref: string) => `plink:${ref}`,
  merchantPaymentLinks: (merchantId: number) => `merchant:${merchantId}:plinks`,
  paymentLinksActive: () => "plinks:active",
  /** A link's API order → its paymentRef (payment.received / payment.sent carry only the order id). */
  paymentLinkByOrder: (orderId: string) => `plink:order:${orderId}`,
  /** An order no link was known to hold: its active links' orders are re-read once for it. */
  paymentLinkOrderLookup: (orderId: string) => `plink:lookup:${orderId}`,
  /** The last feed stage shown to the merchant for a link (1 received, 2 sent, 3 settled); only ever rises. */
  paymentLinkFeedStage: (ref: string) => `plink:feedstage:${ref}`,
  /** One feed delivery at a time per link (events of one link are delivered in parallel jobs). */
  paymentLinkFeedLock: (ref: string) => `plink:feedlock:${ref}`,
  /** Ops were told of a treasury withdrawal's status (webhooks arrive at least once: told once). */
  treasuryNoticeSent: (transactionId: string, status: string) =>
    `plink:feed:treasury:${transactionId}:${status}`,
  /** A four-eyes withdrawal request, the pending ones by expiry, and the API transaction → its request. */
  approval: (id: string) => `approval:${id}`,
  approvalsPending: () => "approvals:pending",
  approvalByTransaction: (transactionId: string) => `approval:tx:${transactionId}`,
  refund: (orderId: string) => `refund:${orderId}`,
  refundsOpen: () => "refunds:open",
  /** The withdrawal a refund made, by the transaction id POST /withdraw/btc answered. */
  refundByTransaction: (transactionId: string) => `refund:tx:${transactionId}`,
  /** The refund whose invoice carries this payment hash (a hash is refunded to once, by one order's refund). */
  refundByHash: (paymentHash: string) => `refund:hash:${paymentHash}`,
  idempotency: (scope: string, key: string) => `idem:${scope}:${key}`,
  updateSeen: (updateId: number) => `updates:seen:${updateId}`,
  updateQueue: (chat: string) => `updates:chat:${chat}`,
  updatesReady: () => "updates:ready",
  updateLease: (chat: string) => `updates:lease:${chat}`,
  updateFence: () => "updates:fence",
  updateTries: () => "updates:tries",
  updateCalls: (updateId: number) => `updates:calls:${updateId}`,
  incomingLimit: (userId: number) => `ratelimit:in:${userId}`,
  /**
   * Heartbeat of a running bot process (short TTL, renewed while it lives); delivery locks, update leases and
   * pending runOnce claims name their owner by this id.
   */
  process: (processId: string) => `process:${processId}`,
  /** One rate alert (JSON). */
  rateAlert: (alertId: string) => `ratealert:${alertId}`,
  /** A user's armed rate alerts (set of ids). */
  userRateAlerts: (userId: number) => `user:${userId}:ratealerts`,
  /** Armed rate alerts of one corridor, scored by threshold (minor units for 100,000 sats). */
  rateAlertsByCorridor: (country: string) => `ratealerts:${country}`,
  /** The rate-alert check's tick claim: one price fetch per corridor per tick across every process. */
  rateAlertTick: () => "ratealerts:tick",
  /** The update id of the Confirm press that took a buy order. */
  buyConfirm: (orderId: string) => `idem:buy-confirm:${orderId}`,
  /** A buy order's simulated bank transfer went through (sandbox and staging). */
  simulated: (orderId: string) => `idem:simulate:${orderId}:done`,
  buyRequote: (orderId: string) => `idem:buy-requote:${orderId}`,
  priceCache: (iso: string) => `cache:price:${iso}`,
  payoutBanks: (country: "NG" | "ZA") => `payout:cache:banks:${country}`,
  payoutMinimums: () => "payout:cache:minimums",
  treasuryBanks: () => "treasury:banks",
  /** Whether a listed ops user is an administrator of the ops group (getChatMember), cached briefly. */
  opsAdmin: (chatId: number, userId: number) => `ops:admin:${chatId}:${userId}`,
  alertQueue: () => "ops:alerts:queue",
  /** A refund still open this long after it was requested was announced to ops (once per period). */
  alertRefundStuck: (orderId: string) => `ops:alerts:refund:${orderId}`,
  alertFlushLock: () => "ops:alerts:flushlock",
  alertCheckLock: () => "ops:alerts:checklock",
  alertLowBalance: (currency: string) => `ops:alerts:lowbalance:${currency}`,
  alertApiDown: () => "ops:alerts:apidown",
  alertApiFailures: () => "ops:alerts:apifailures",
  alertForgedWindow: () => "ops:alerts:forged",
  /** Short ids behind "retry" buttons of dead-letter alerts. */
  alertRef: (ref: string) => `ops:alertref:${ref}`,
  webhookLast: () => "ops:webhook:last",
  webhookForged: () => "ops:webhook:forged",
  broadcastLock: () => "broadcast:lock",
  broadcastProgress: (id: string) => `broadcast:${id}:progress`,
  broadcastDraft: (id: string) => `broadcast:draft:${id}`,
  // The events pipeline's own keys (BullMQ's live under `<prefix>:<queue>:*`, store/queue-names.ts).
  /** SET NX marker of a webhook already accepted: (event, data.id, data.status[, confirmations]). */
  dedupe: (digest: string) => `events:seen:${digest}`,
  /** Per-order log of applied transitions still to show the user (the notification outbox). */
  outbox: (orderId: string) => `events:outbox:${orderId}`,
  /**
   * How many outbox entries have been delivered to the user, then ":<seq>" while that entry's notification is being
   * sent (set before the send, cleared by the cursor's move; left behind only by a crash mid-send).
   */
  outboxCursor: (orderId: string) => `events:outbox:${orderId}:cursor`,
  /**
   * Sorted set: orders whose outbox holds undelivered entries, scored by when a delivery is overdue (ms). Entered
   * with the entry, left when the cursor catches up; the sweep hands overdue ones to the delivery queue.
   */
  outboxDue: () => "events:outbox:due",
  /** Short-lived lock so one delivery at a time talks to an order's chat. */
  orderLock: (orderId: string) => `events:lock:${orderId}`,
  /** KES payment.sent carries only `reference`: remembered from payment.received to find the order. */
  referenceIndex: (reference: string) => `events:ref:${reference}`,
  /** Reconciler backoff: how many times an open order has been checked without reaching a terminal stage. */
  reconcileAttempts: (orderId: string) => `events:reconcile:attempts:${orderId}`,
} as const;
