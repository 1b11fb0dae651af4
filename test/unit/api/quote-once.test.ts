import { describe, expect, it } from "vitest";
import { createQuoteOnce, type OrderListItem, PayoutApiError, type Quote } from "#src/api/index.js";
import type { QuoteReader } from "#src/api/quote-once.js";

/** The payout API is the outside world here: a stand-in that records calls and answers as told. */
const REFERENCE = "tg-0123456789abcdef01234567";
const request = {
  amount: 500_000,
  sourceCurrency: "BTCSAT",
  targetCurrency: "NGNKOBO",
  paymentMethod: "LIGHTNING",
  paymentCurrency: "NGNKOBO",
  autopayout: true,
  customerReference: REFERENCE,
} as const;

const quote: Quote = {
  id: "q-1",
  sourceCurrency: "BTCSAT",
  targetCurrency: "NGNKOBO",
  amountInSourceCurrency: 5_000,
  amountInTargetCurrency: 500_000,
  expiry: "2026-11-24T10:00:00.000Z",
  invoice: "lnbc1…",
  customerReference: REFERENCE,
  orderId: "12345-6789",
};

const uncertain = () =>
  new PayoutApiError({
    kind: "server",
    endpoint: "POST /quote",
    detail: "500",
    status: 500,
    outcomeUnknown: true,
  });

function api(answers: { create: () => Quote; list: Array<() => OrderListItem[]> }) {
  const calls = { create: 0, list: 0 };
  const reader: QuoteReader = {
    async createQuote() {
      calls.create += 1;
      return answers.create();
    },
    async listOrders() {
      const answer = answers.list[Math.min(calls.list, answers.list.length - 1)]!;
      calls.list += 1;
      return answer();
    },
  };
  return { reader, calls };
}

const listed = (quotes: Partial<Quote>[]): OrderListItem[] => [
  { orderId: "12345-6789", status: "PENDING", quotes, transactions: [] },
];

describe("createQuoteOnce", () => {
  it("adopts the quote an uncertain create made", async () => {
    const { reader, calls } = api({
      create: () => {
        throw uncertain();
      },
      list: [() => listed([quote])],
    });
    const result = await createQuoteOnce(reader, request, { readbackDelayMs: 1 });
    expect(result).toMatchObject({ adopted: true, quote: { id: "q-1", orderId: "12345-6789" } });
    expect(calls).toEqual({ create: 1, list: 1 });
  });

  it("a listing without our reference proves nothing was made: a plain failure, safe to retry", async () => {
    const other = { ...quote, id: "q-2", customerReference: "tg-someone-else" };
    const { reader, calls } = api({
      create: () => {
        throw uncertain();
      },
      list: [() => listed([other])],
    });
    const error = await createQuoteOnce(reader, request, { readbackDelayMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayoutApiError);
    expect((error as PayoutApiError).outcomeUnknown).toBe(false);
    expect(calls).toEqual({ create: 1, list: 3 });
  });

  it("an unreadable listing leaves the outcome unknown; the retry reads first and creates nothing twice", async () => {
    const down = () => {
      throw new PayoutApiError({ kind: "network", endpoint: "GET /order/all", detail: "refused" });
    };
    const first = api({
      create: () => {
        throw uncertain();
      },
      list: [down],
    });
    const error = await createQuoteOnce(first.reader, request, { readbackDelayMs: 1 }).catch(
      (e: unknown) => e,
    );
    expect((error as PayoutApiError).outcomeUnknown).toBe(true);

    const retry = api({ create: () => quote, list: [() => listed([quote])] });
    const result = await createQuoteOnce(retry.reader, request, { resolveFirst: true });
    expect(result.adopted).toBe(true);
    expect(retry.calls).toEqual({ create: 0, list: 1 });

    const stillDown = api({ create: () => quote, list: [down] });
    const again = await createQuoteOnce(stillDown.reader, request, { resolveFirst: true }).catch(
      (e: unknown) => e,
    );
    expect((again as PayoutApiError).outcomeUnknown).toBe(true);
    expect(stillDown.calls.create).toBe(0);
  });

  it("a definite failure (4xx) is passed on without reading anything", async () => {
    const rejected = new PayoutApiError({
      kind: "validation",
      endpoint: "POST /quote",
      detail: "too small",
      status: 400,
    });
    const { reader, calls } = api({
      create: () => {
        throw rejected;
      },
      list: [() => []],
    });
    await expect(createQuoteOnce(reader, request)).rejects.toBe(rejected);
    expect(calls).toEqual({ create: 1, list: 0 });
  });
});
