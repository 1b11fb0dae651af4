import type { Api, InlineKeyboard } from "grammy";
import type { DeliverMissing, RecoveredMessages } from "#src/events/index.js";
import { intlLocale } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { isNairaFunded } from "#src/orders/index.js";
import { createOrderMessages, UnreachableUserError, type View } from "#src/orders/messages.js";
import type { OrderRecord } from "#src/store/index.js";
import { buyStatusKeyboard } from "./buy/confirm-step.ts";
import type { BotDeps } from "./context.ts";
import { renderInvoice } from "./payout/invoice.ts";
import { nairaStatusKeyboard } from "./payout/naira/status.ts";

/**
 * What the recovery sweep (src/events/recovery.ts) calls for a confirmed order whose messages never reached its
 * owner: the same messages the flow sends after Confirm, in the owner's language, through the same owner
 * (src/orders/messages.ts). A payout still payable gets its invoice (QR photo + BOLT11 text, read back from GET
 * /order's `paymentBtcDetail`), then — if it has none — the status card the pipeline edits from then on; a buy gets
 * its status card (its transfer details are on the quote card, in front of the user before they could press
 * Confirm). An owner who blocked the bot is marked unreachable and the order counts as delivered (nothing can reach
 * them).
 */
type RecoveryDeps = Pick<
  BotDeps,
  "api" | "store" | "translator" | "accountLanguage" | "config" | "logger" | "now"
> & {
  telegram: Api;
};

export function createDeliverMissing(deps: RecoveryDeps): DeliverMissing {
  const languageOf = languageResolver(deps.store.users, deps.accountLanguage);
  const messages = createOrderMessages(deps);

  return async (order) => {
    const language = await languageOf(order.userId);
    const view: View = { t: deps.translator.t(language), locale: intlLocale(language) };
    const sent: RecoveredMessages = {};
    try {
      // The deadline is the API's, so the API's clock says whether it is still payable.
      const nowMs = deps.now();
      const deadlineMs = Date.parse(order.expiresAt);
      const payable = order.stage === "awaiting_payment" && deadlineMs > nowMs;
      // A naira-funded payout has no invoice: its transfer details are on the quote card, like a buy's.
      if (order.kind === "payout" && !isNairaFunded(order) && payable && !order.invoiceMessageId) {
        const invoice = await invoiceOf(deps, order);
        const simulate = deps.config.payout.env !== "production";
        if (invoice) {
          const rendered = await renderInvoice(order, invoice, view, { nowMs, deadlineMs, simulate });
          sent.invoiceMessageId = await messages.sendInvoice(order, rendered);
        }
      }
      if (order.statusMessageId === undefined) {
        const keyboard = simulateKeyboard(deps, order, view);
        const shown = await messages.showStatus(order, view, { by: "recovery", keyboard });
        if (shown !== "busy" && shown.statusMessageId !== undefined)
          sent.statusMessageId = shown.statusMessageId;
      }
    } catch (error) {
      if (!(error instanceof UnreachableUserError)) throw error;
      await deps.store.users.update(order.userId, { unreachable: true });
      deps.logger.info({ orderId: order.orderId }, "owner unreachable; recovered messages dropped");
    }
    return sent;
  };
}

/** A buy's or a naira payout's card with its Simulate button (sandbox/staging), as its confirm step sends it. */
function simulateKeyboard(deps: RecoveryDeps, order: OrderRecord, view: View) {
  if (order.kind === "buy")
    return (rendered: InlineKeyboard | undefined) => buyStatusKeyboard(deps, order, view.t, rendered);
  if (isNairaFunded(order))
    return (rendered: InlineKeyboard | undefined) => nairaStatusKeyboard(deps, order, view.t, rendered);
  return undefined;
}

/** The BOLT11 of the order's quote, as the API has it (never kept in Redis beyond the flow's own record). */
async function invoiceOf(deps: RecoveryDeps, order: OrderRecord): Promise<string | undefined> {
  const found = await deps.api.getOrder(order.orderId);
  const invoice =
    found.paymentBtcDetail || found.quotes.find((quote) => quote.id === order.quoteId)?.invoice || undefined;
  if (!invoice) deps.logger.warn({ orderId: order.orderId }, "no invoice to recover for a payable order");
  return invoice;
}
