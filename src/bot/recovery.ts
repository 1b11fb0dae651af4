import { type Api, GrammyError, InputFile } from "grammy";
import type { DeliverMissing, RecoveredMessages } from "#src/events/index.js";
import { escapeHtml, intlLocale } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import { formatMoney } from "#src/money/index.js";
import { formatExpiryTime, isNairaFunded, renderStatusCard } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { buyStatusKeyboard } from "./buy/confirm-step.ts";
import type { BotDeps } from "./context.ts";
import { invoiceQrPng } from "./payout/invoice.ts";
import { invoiceKeyboard } from "./payout/keyboards.ts";
import { formatCountdown } from "./payout/quote-orders.ts";

/**
 * What the recovery sweep (src/events/recovery.ts) calls for a confirmed order whose messages never reached its
 * owner: the same messages the flow sends after Confirm, in the owner's language. A payout still payable gets its
 * invoice (QR photo + BOLT11 text, read back from GET /order's `paymentBtcDetail`), then — if it has none — the
 * status card the pipeline edits from then on; a buy gets its status card (its transfer details are on the quote
 * card, in front of the user before they could press Confirm). An
 * owner who blocked the bot is marked unreachable and the order counts as delivered (nothing can reach them).
 */
type RecoveryDeps = Pick<
  BotDeps,
  "api" | "store" | "translator" | "accountLanguage" | "config" | "logger" | "now"
> & {
  telegram: Api;
};

export function createDeliverMissing(deps: RecoveryDeps): DeliverMissing {
  const languageOf = languageResolver(deps.store.users, deps.accountLanguage);

  return async (order) => {
    const language = await languageOf(order.userId);
    const t = deps.translator.t(language);
    const locale = intlLocale(language);
    const sent: RecoveredMessages = {};
    try {
      // The deadline is the API's, so the API's clock says whether it is still payable.
      const payable = order.stage === "awaiting_payment" && Date.parse(order.expiresAt) > deps.now();
      // A naira-funded payout has no invoice: its transfer details are on the quote card, like a buy's.
      if (order.kind === "payout" && !isNairaFunded(order) && payable && !order.invoiceMessageId) {
        const invoice = await invoiceOf(deps, order);
        if (invoice) sent.invoiceMessageId = await sendInvoice(deps, order, invoice, t, locale);
      }
      if (!order.statusMessageId) {
        const card = renderStatusCard(order, t, locale);
        const keyboard =
          order.kind === "buy" ? buyStatusKeyboard(deps, order, t, card.keyboard) : card.keyboard;
        const status = await deps.telegram.sendMessage(order.chatId, card.text, {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
          ...(keyboard ? { reply_markup: keyboard } : {}),
        });
        sent.statusMessageId = status.message_id;
      }
    } catch (error) {
      if (
        !(
          error instanceof GrammyError &&
          (error.error_code === 403 || /chat not found/i.test(error.description))
        )
      )
        throw error;
      await deps.store.users.update(order.userId, { unreachable: true });
      deps.logger.info({ orderId: order.orderId }, "owner unreachable; recovered messages dropped");
    }
    return sent;
  };
}

/** The BOLT11 of the order's quote, as the API has it (never kept in Redis beyond the flow's own record). */
async function invoiceOf(deps: RecoveryDeps, order: OrderRecord): Promise<string | undefined> {
  const found = await deps.api.getOrder(order.orderId);
  const invoice =
    found.paymentBtcDetail || found.quotes.find((quote) => quote.id === order.quoteId)?.invoice || undefined;
  if (!invoice) deps.logger.warn({ orderId: order.orderId }, "no invoice to recover for a payable order");
  return invoice;
}

async function sendInvoice(
  deps: RecoveryDeps,
  order: OrderRecord,
  invoice: string,
  t: ReturnType<RecoveryDeps["translator"]["t"]>,
  locale: string,
): Promise<number> {
  const png = await invoiceQrPng(invoice);
  const photo = await deps.telegram.sendPhoto(order.chatId, new InputFile(png, "invoice.png"), {
    caption: t("payout:invoice.caption", {
      amount: escapeHtml(formatMoney(order.pay.amount, "BTCSAT", locale)),
      time: formatExpiryTime(order, locale),
      countdown: formatCountdown(Date.parse(order.expiresAt) - deps.now()),
      code: order.verificationCode,
    }),
    parse_mode: "HTML",
  });
  const keyboard = invoiceKeyboard(t, order.orderId, {
    simulate: deps.config.payout.env !== "production",
    save: !order.recipientId,
  });
  await deps.telegram.sendMessage(order.chatId, t("payout:invoice.text", { invoice: escapeHtml(invoice) }), {
    parse_mode: "HTML",
    ...(keyboard ? { reply_markup: keyboard } : {}),
  });
  return photo.message_id;
}
