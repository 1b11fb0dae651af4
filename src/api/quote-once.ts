import { isPayoutApiError, PayoutApiError } from "./errors.ts";
import type { OrderListItem } from "./schemas/order.ts";
import { type Quote, type QuoteRequest, quoteSchema } from "./schemas/quote.ts";

/**
 * POST /quote for one user action, never twice. The request carries a `customerReference` unique to the action;
 * the API keeps it on the quote and lists it in GET /order/all. When a create's outcome is uncertain (the server
 * answered 5xx, timed out or reset after the request went out: `outcomeUnknown`), the listing is read back and the
 * quote carrying our reference is adopted. Only when the API answers and lists no such quote does the caller learn
 * that nothing was created. A later attempt for the same action (the user's "Try again") passes `resolveFirst` with
 * the same reference: the listing is read first and a quote made meanwhile is adopted instead of creating another.
 *
 * What this cannot see: GET /order/all shows no paging or filter in the spec, so a quote pushed out of the listing
 * would read as absent; and a request the server is still working on when we read may be listed only later.
 */
export interface QuoteReader {
  createQuote(request: QuoteRequest): Promise<Quote>;
  listOrders(): Promise<OrderListItem[]>;
}

interface QuoteOnceOptions {
  /** Read the listing before creating (a retry of an action whose earlier attempt failed). */
  resolveFirst?: boolean;
  /** Listing reads after an uncertain create (default 3), `readbackDelayMs` apart (default 400). */
  readbacks?: number;
  readbackDelayMs?: number;
}

interface QuoteOnceResult {
  quote: Quote;
  /** true: the quote already existed at the API (made by an earlier, uncertain attempt) and was read back. */
  adopted: boolean;
}

export async function createQuoteOnce(
  api: QuoteReader,
  request: QuoteRequest & { customerReference: string },
  options: QuoteOnceOptions = {},
): Promise<QuoteOnceResult> {
  const reference = request.customerReference;
  if (options.resolveFirst) {
    const existing = await findOrUncertain(api, reference);
    if (existing) return { quote: existing, adopted: true };
  }
  try {
    return { quote: await api.createQuote(request), adopted: false };
  } catch (error) {
    if (!isPayoutApiError(error) || !error.outcomeUnknown) throw error;
    const attempts = Math.max(1, options.readbacks ?? 3);
    let lastFailure: unknown;
    let answered = false;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, options.readbackDelayMs ?? 400));
      try {
        const found = await findQuoteByReference(api, reference);
        if (found) return { quote: found, adopted: true };
        answered = true;
      } catch (readError) {
        lastFailure = readError;
      }
    }
    if (answered) {
      // The API answered and holds no quote of ours: nothing was created, an honest failure (retry is safe).
      throw new PayoutApiError({
        kind: error.kind,
        endpoint: error.endpoint,
        detail: "no quote was created (read back)",
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.apiMessage !== undefined ? { apiMessage: error.apiMessage } : {}),
        outcomeUnknown: false,
        cause: error,
      });
    }
    throw uncertain(lastFailure ?? error);
  }
}

/** The quote carrying `reference` in GET /order/all, or undefined when the API lists none. */
async function findQuoteByReference(
  api: Pick<QuoteReader, "listOrders">,
  reference: string,
): Promise<Quote | undefined> {
  const orders = await api.listOrders();
  for (const order of orders) {
    for (const listed of order.quotes) {
      if (listed.customerReference !== reference) continue;
      const parsed = quoteSchema.safeParse({ ...listed, orderId: listed.orderId ?? order.orderId });
      if (parsed.success) return parsed.data;
      // It exists but lacks what a quote card needs: never create another; the caller reports the uncertainty.
      throw new PayoutApiError({
        kind: "invalid_response",
        endpoint: "GET /order/all",
        detail: "the listed quote lacks required fields",
        outcomeUnknown: true,
      });
    }
  }
  return undefined;
}

async function findOrUncertain(api: QuoteReader, reference: string): Promise<Quote | undefined> {
  try {
    return await findQuoteByReference(api, reference);
  } catch (error) {
    throw uncertain(error);
  }
}

/** The listing could not be read: whether a quote exists is still unknown. */
function uncertain(cause: unknown): PayoutApiError {
  if (isPayoutApiError(cause) && cause.outcomeUnknown) return cause;
  return new PayoutApiError({
    kind: isPayoutApiError(cause) ? cause.kind : "network",
    endpoint: "POST /quote",
    detail: "outcome unknown and the order listing could not be read",
    ...(isPayoutApiError(cause) && cause.status !== undefined ? { status: cause.status } : {}),
    outcomeUnknown: true,
    cause,
  });
}
