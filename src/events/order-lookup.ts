import type { TransactionFacts } from "#src/orders/facts.js";
import { transactionFacts } from "#src/orders/facts.js";
import type { OrderRecord, OrderText, Store } from "#src/store/index.js";
import type { EventsPayoutApi } from "./types.ts";

/** What an event names its order by (the receiver's validated id and hash), to find the bot's order. */
export interface EventRefs {
  orderId?: string;
  hash?: string;
}

/**
 * Thrown by an ingest run from the receiver (before the acknowledgement) when the event needs the payout API to
 * find its order: the receiver queues it instead, so the sender's answer never waits on another HTTP call.
 */
export class NeedsQueueError extends Error {
  constructor() {
    super("the order needs an API lookup: queue the event");
    this.name = "NeedsQueueError";
  }
}

interface LookupDeps {
  store: Store;
  api: EventsPayoutApi;
}

/** Find the bot order an event is about: orderId, then hash, then the KES reference, then ask the API. */
export async function resolveOrder(
  deps: LookupDeps,
  facts: TransactionFacts,
  payload: unknown,
  refs: EventRefs,
  raws: Map<string, string>,
  mayAskApi: boolean,
  known?: OrderText,
): Promise<OrderRecord | undefined> {
  const reference = referenceOf(payload);
  const tried = new Set<string>();
  let order = await lookup(deps.store, tried, refs.orderId, refs.hash, undefined, raws, known);
  order ??= await lookup(deps.store, tried, facts.orderId, facts.hash, facts.settledQuoteId, raws);
  // The sandbox's KES shape puts the quote hash in `reference`; the real one may use its own reference.
  if (!order && reference) order = await deps.store.orders.findByHash(reference);
  if (!order && reference) {
    const orderId = await deps.store.orderReferences.find(reference);
    if (orderId) order = await deps.store.orders.get(orderId);
  }
  if (!order && facts.id) {
    if (!mayAskApi) throw new NeedsQueueError();
    try {
      const transactions = await deps.api.getTransactions({ id: facts.id });
      for (const transaction of transactions) {
        const found = transactionFacts(transaction);
        order = await lookup(deps.store, tried, found.orderId, found.hash, found.settledQuoteId);
        if (order) break;
      }
    } catch (error) {
      // Not every event is ours (payment-link orders): an unknown transaction is not worth a retry.
      if (!isNotFound(error)) throw error;
    }
  }
  return order;
}

/** First order found by id, hash or quote id; each value is looked up once per event (`tried`). */
async function lookup(
  store: Store,
  tried: Set<string>,
  orderId?: string,
  hash?: string,
  quoteId?: string,
  raws?: Map<string, string>,
  known?: OrderText,
): Promise<OrderRecord | undefined> {
  const fresh = (kind: string, value: string | undefined): value is string => {
    if (!value || tried.has(`${kind}:${value}`)) return false;
    tried.add(`${kind}:${value}`);
    return true;
  };
  const byId = async (id: string) => {
    const found = await store.orders.getWithRaw(id, known?.orderId === id ? known.text : undefined);
    if (found) raws?.set(found.order.orderId, found.raw);
    return found?.order;
  };
  return (
    (fresh("id", orderId) ? await byId(orderId) : undefined) ??
    (fresh("hash", hash) ? await store.orders.findByHash(hash) : undefined) ??
    (fresh("quote", quoteId) ? await store.orders.findByQuoteId(quoteId) : undefined)
  );
}

/** KES spec shape: `metadata.reference` on both events, the only link from payment.sent back to the order. */
export function referenceOf(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const metadata = (payload as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const reference = (metadata as { reference?: unknown }).reference;
  return typeof reference === "string" && reference.trim() !== "" ? reference.trim() : undefined;
}

export function isNotFound(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { kind, status } = error as { kind?: unknown; status?: unknown };
  return kind === "not_found" || status === 404;
}
