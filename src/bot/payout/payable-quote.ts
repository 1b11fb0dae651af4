import { createQuoteOnce, type Quote, type QuoteRequest } from "#src/api/index.js";
import { CORRIDORS } from "#src/corridors/index.js";
import type { Country } from "#src/money/index.js";
import { quoteAmounts } from "#src/orders/quote-math.js";

/**
 * `minor` (target minor units) rounded down to what the country's rail pays, so a payout quote is for an amount the
 * recipient's rail can actually pay (M-Pesa pays whole shillings: cents would be charged and never arrive).
 */
export function payableAmount(country: Country, minor: number): number {
  return minor - (minor % CORRIDORS[country].payableStepMinor);
}

type Api = Parameters<typeof createQuoteOnce>[0];
type Request = QuoteRequest & { customerReference: string };

export interface PayableQuote {
  quote: Quote;
  adopted: boolean;
  /** What the recipient would have got before rounding down to the rail (target minor units), when it was rounded. */
  roundedFrom?: number;
}

/**
 * POST /quote (once per reference, see createQuoteOnce) so that what arrives is payable. An amount asked for in the
 * target currency is rounded down before it is quoted. An amount in sats is quoted as asked; when what it buys is not
 * payable, the API is asked again for the rounded-down target amount, under a reference of its own, so every figure
 * on the card is the API's and the sats paid buy exactly what arrives. The first quote is left to expire.
 */
export async function createPayableQuote(
  api: Api,
  country: Country,
  request: Request,
  options: { resolveFirst: boolean },
): Promise<PayableQuote> {
  if (request.paymentCurrency === request.targetCurrency) {
    const asked = request.amount;
    const payable = payableAmount(country, asked);
    // Nothing payable at all is the API's to refuse ("Amount too small"), for the amount as asked.
    if (payable === asked || payable <= 0) return createQuoteOnce(api, request, options);
    return { ...(await createQuoteOnce(api, { ...request, amount: payable }, options)), roundedFrom: asked };
  }
  const first = await createQuoteOnce(api, request, options);
  const buys = quoteAmounts(first.quote).receive;
  const payable = payableAmount(country, buys);
  if (payable === buys || payable <= 0) return first;
  const second = await createQuoteOnce(
    api,
    {
      ...request,
      amount: payable,
      paymentCurrency: request.targetCurrency,
      customerReference: `${request.customerReference}-payable`,
    },
    options,
  );
  return { ...second, roundedFrom: buys };
}
