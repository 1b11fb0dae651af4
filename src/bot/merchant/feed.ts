import { type Api, GrammyError } from "grammy";
import { type Transaction, transactionSchema } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import type { AnyAlert } from "#src/bot/rules/alert-types.js";
import { shortAddress } from "#src/bot/rules/bitcoin-address.js";
import { type PaymentLinkEvent, RetryLaterError } from "#src/events/index.js";
import { escapeHtml, intlLocale, type TFunction } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { formatMoney } from "#src/money/index.js";
import type { PaymentLinkRecord } from "#src/store/index.js";
import type { ProductStore } from "#src/store/ports.js";

/**
 * The merchant's live feed: the events pipeline hands over payment-link traffic (payment_link.settled, and
 * payment.* events of orders the bot did not create); each event of a merchant's link becomes one message in the
 * merchant's chat, in their language, with amounts in both currencies. Treasury withdrawals arrive the same way
 * (their orders are not the bot's either) and are reported to ops instead.
 *
 * Each link's feed moves through received → sent (or sent_failed) → settled, each stage shown once and in order.
 * Events of one link are delivered by parallel jobs (payment.sent pending and confirmed, payment_link.settled right
 * after mining, a redelivered burst), so one delivery at a time per link holds the link's feed lock; the shown stage
 * only rises, is raised after Telegram accepted the message (at least once: a crash in between repeats only that
 * message), and a later stage arriving first shows the skipped earlier ones before itself, from the link's record.
 */
export interface MerchantFeedDeps extends Pick<BotDeps, "logger" | "translator" | "accountLanguage"> {
  store: ProductStore<"merchant">;
  api: Pick<BotDeps["api"], "getPaymentLinkOrders">;
  /** grammY Api with the process's throttler and auto-retry. */
  telegram: Api;
  /** Where treasury withdrawal results go (the ops alert queue). */
  alerts?: { raise(alert: AnyAlert): Promise<void> };
}

type FeedKind = "received" | "sent" | "sent_failed" | "settled";

const STAGE: Record<FeedKind, number> = { received: 1, sent: 2, sent_failed: 2, settled: 3 };
/** The stage a later one implies was passed, shown when its own event comes late or never. */
const IMPLIED: Record<number, FeedKind> = { 1: "received", 2: "sent" };
/** How long a delivery waits when another holds the link's feed lock. */
const LOCK_RETRY_MS = 200;
/** How long a later stage waits for its earlier stages' own events before showing them from the link's record. */
const WAIT_FOR_EARLIER_MS = 5_000;

/** What the feed's steps share: the dependencies, its logger, and each merchant's language. */
interface Feed {
  deps: MerchantFeedDeps;
  logger: BotDeps["logger"];
  languageOf: ReturnType<typeof languageResolver>;
}

export function createMerchantFeed(deps: MerchantFeedDeps): (event: PaymentLinkEvent) => Promise<void> {
  const feed: Feed = {
    deps,
    logger: deps.logger.child({ module: "merchant-feed" }),
    languageOf: languageResolver(deps.store.users, deps.accountLanguage),
  };
  return async (event) => {
    const found = await feedEventOf(feed, event);
    if (!found) return;
    const link = found.ref ? await deps.store.paymentLinks.get(found.ref) : undefined;
    if (!link) {
      feed.logger.debug(
        { event: event.event, orderId: event.orderId },
        "payment-link event for no link of ours",
      );
      return;
    }
    const release = await deps.store.paymentLinks.lockFeed(link.ref);
    if (!release) throw new RetryLaterError(LOCK_RETRY_MS);
    try {
      await show(feed, link.ref, found.kind, found.tx, event.receivedAt);
    } finally {
      await release();
    }
  };
}

/** What an event says for the feed: the link it is about, its stage and transaction (undefined: not a feed event). */
async function feedEventOf(
  { deps }: Feed,
  event: PaymentLinkEvent,
): Promise<{ ref: string | undefined; tx: Transaction | undefined; kind: FeedKind } | undefined> {
  if (event.event === "payment_link.settled") {
    const data = (event.data ?? {}) as { paymentRef?: unknown; transaction?: unknown };
    const parsed = transactionSchema.safeParse(data.transaction);
    return {
      ref: typeof data.paymentRef === "string" ? data.paymentRef : undefined,
      tx: parsed.success ? parsed.data : undefined,
      kind: "settled",
    };
  }
  if (event.event !== "payment.received" && event.event !== "payment.sent") return undefined;
  const parsed = transactionSchema.safeParse(event.data);
  if (!parsed.success) return undefined;
  const tx = parsed.data;
  if (await treasury(deps, event, tx)) return undefined;
  const ref = await refForOrder(deps, event.orderId ?? tx.btcUsdMetadata?.orderId);
  const kind =
    event.event === "payment.received" ? "received" : tx.status === "FAILED" ? "sent_failed" : "sent";
  return { ref, tx, kind };
}

async function refForOrder(deps: MerchantFeedDeps, orderId: string | undefined): Promise<string | undefined> {
  if (!orderId) return undefined;
  const known = await deps.store.paymentLinks.refForOrder(orderId);
  if (known) return known;
  // A link whose order expired or was refreshed (a new invoice, another payment method) got a new one: read the
  // active links' orders again, once per unknown order (several new orders in a few seconds are each found).
  if (!(await deps.store.paymentLinks.claimOrderLookup(orderId))) return undefined;
  for (const ref of await deps.store.paymentLinks.activeRefs()) {
    const link = await deps.api.getPaymentLinkOrders(ref).catch(() => undefined);
    if (link)
      await deps.store.paymentLinks.linkOrders(
        ref,
        link.orders.map((order) => order.orderId),
      );
  }
  return deps.store.paymentLinks.refForOrder(orderId);
}

/** A treasury withdrawal's event (true): reported to ops once per status, never to a merchant. */
async function treasury(deps: MerchantFeedDeps, event: PaymentLinkEvent, tx: Transaction): Promise<boolean> {
  const approval = await deps.store.approvals.findByTransaction(tx.id);
  if (!approval) return false;
  if (event.event !== "payment.sent") return true;
  if (await deps.store.paymentLinks.treasuryNoticeSent(tx.id, tx.status)) return true;
  await deps.alerts?.raise({
    type: "withdrawal_update",
    approvalId: approval.id,
    transactionId: tx.id,
    status: tx.status,
    amount: tx.amount,
    currency: tx.currency,
    at: event.receivedAt,
  });
  await deps.store.paymentLinks.markTreasuryNoticeSent(tx.id, tx.status);
  await deps.store.audit.record({
    actor: "system",
    action: "treasury.status",
    details: { id: approval.id, transactionId: tx.id, status: tx.status },
  });
  return true;
}

/** Under the link's feed lock: record what the event says, then show every stage not yet shown up to it. */
async function show(
  feed: Feed,
  ref: string,
  kind: FeedKind,
  tx: Transaction | undefined,
  receivedAt: string | undefined,
): Promise<void> {
  const { deps } = feed;
  const txid = tx?.btcUsdMetadata?.onchainTxid;
  const updated = await deps.store.paymentLinks.advance(ref, {
    ...(kind === "received" ? { status: "paid" as const } : {}),
    ...(kind === "settled" ? { status: "settled" as const } : {}),
    ...(kind === "received" && tx?.currency === "BTC" ? { receivedSats: tx.amount } : {}),
    ...(txid ? { txid } : {}),
  });
  if (!updated) return;
  const shown = await deps.store.paymentLinks.feedStage(ref);
  if (STAGE[kind] <= shown) return;
  // A later stage first: its earlier events are usually a moment behind (parallel jobs, a redelivered burst) and
  // carry what the merchant wants to see (the sats, the payment method). Wait for them briefly; only then fill in.
  const ageMs = receivedAt ? Date.now() - Date.parse(receivedAt) : Number.POSITIVE_INFINITY;
  if (STAGE[kind] > shown + 1 && ageMs >= 0 && ageMs < WAIT_FOR_EARLIER_MS)
    throw new RetryLaterError(LOCK_RETRY_MS);
  const language = await feed.languageOf(updated.merchantId);
  const t = deps.translator.t(language);
  for (let stage = shown + 1; stage <= STAGE[kind]; stage++) {
    const current = stage === STAGE[kind] ? kind : IMPLIED[stage];
    if (!current) continue;
    const text = renderFeed(current, updated, current === kind ? tx : undefined, t, intlLocale(language));
    const delivered = await send(feed, updated.merchantId, text);
    // A merchant who blocked the bot gets nothing more of this event: the stage counts as shown.
    await deps.store.paymentLinks.raiseFeedStage(ref, delivered ? stage : STAGE[kind]);
    if (!delivered) break;
  }
}

/** false when the merchant blocked the bot (recorded; nothing is retried). */
async function send({ deps, logger }: Feed, merchantId: number, text: string): Promise<boolean> {
  try {
    await deps.telegram.sendMessage(merchantId, text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    });
    return true;
  } catch (error) {
    if (!(error instanceof GrammyError && error.error_code === 403)) throw error;
    // The merchant blocked the bot: record it and do not retry (the link's state is still kept).
    await deps.store.users.update(merchantId, { unreachable: true });
    logger.info({ merchantId }, "merchant unreachable; feed message dropped");
    return false;
  }
}

function renderFeed(
  kind: FeedKind,
  link: PaymentLinkRecord,
  tx: Transaction | undefined,
  t: TFunction,
  locale: string,
): string {
  const sats = tx && tx.currency.toUpperCase() === "BTC" ? tx.amount : link.receivedSats;
  const values = {
    name: escapeHtml(link.name),
    naira: escapeHtml(formatMoney(link.amount, "NGNKOBO", locale)),
    sats: sats === undefined ? "—" : escapeHtml(formatMoney(sats, "BTCSAT", locale)),
    txid: escapeHtml(tx?.btcUsdMetadata?.onchainTxid ?? link.txid ?? "—"),
    address: escapeHtml(shortAddress(link.address)),
    ref: escapeHtml(link.ref),
  };
  const text = t(`merchant:feed.${kind}`, values);
  // A link paid over Lightning says so; everything else about it reads as for a bank transfer.
  const lightning = tx?.btcUsdMetadata?.paymentMethod?.toUpperCase() === "LIGHTNING";
  return kind === "received" && lightning ? `${text}\n${t("paylink:feed_lightning")}` : text;
}
