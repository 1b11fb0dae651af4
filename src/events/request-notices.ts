import { type Api, GrammyError } from "grammy";
import {
  escapeHtml,
  intlLocale,
  type LanguageCode,
  type TFunction,
  type Translator,
} from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import { formatOrderMoney } from "#src/orders/index.js";
import type { MoneyRequest, OrderStage, Store } from "#src/store/index.js";
import { RetryLaterError } from "./queue.ts";

/**
 * The requester's side of a paid money request: when the payer's order (it remembers the request) is paid and when
 * it lands — or fails after payment — the requester is told, in their own language. Each notice is its own delivery
 * job (queued by the order's delivery, with a job id per order and stage) and is marked told after it was sent, so
 * a retried job or a repeated delivery does not send it again. One job at a time tells a request (`holdTelling`):
 * a payout that lands right after its payment runs both jobs at once, and each would find "paid" not yet told.
 */
interface RequestNoticeDeps {
  telegram: Api;
  store: Store;
  translator: Translator;
  languageOf: (userId: number) => Promise<LanguageCode>;
  logger: Logger;
  now: () => number;
}

/** How soon a notice job that found its request being told looks again. */
const TELLING_RETRY_MS = 250;

/** The payer's order stages the requester hears about. */
export const REQUEST_NOTICE_STAGES: readonly OrderStage[] = ["payment_received", "completed", "failed"];

const PAID_STAGES = new Set<OrderStage>(["payment_received", "payout_sent", "completed"]);

export function createRequestNotices(deps: RequestNoticeDeps) {
  const { store, logger } = deps;

  return async function tell(orderId: string, stage: OrderStage): Promise<string> {
    const order = await store.orders.get(orderId);
    if (!order?.requestId) return "no_request";
    const request = await store.requests.get(order.requestId);
    if (!request) return "request_gone";
    if (PAID_STAGES.has(stage)) {
      const marked = await store.requests.markPaid(request.token, orderId);
      if (marked === -1) logger.error({ orderId }, "money request paid by a second order");
    }
    // A payout that lands without its "payment received" event ever reaching us still tells the payment first.
    const stages: OrderStage[] = stage === "completed" ? ["payment_received", "completed"] : [stage];
    const telling = await store.requests.holdTelling(request.token);
    // The other stage's job is telling this request: after it, this one finds what it already told.
    if (!telling) throw new RetryLaterError(TELLING_RETRY_MS);
    try {
      await tellStages(request, stages, orderId);
    } finally {
      await telling.release();
    }
    return "told";
  };

  async function tellStages(request: MoneyRequest, stages: OrderStage[], orderId: string): Promise<void> {
    const language = await deps.languageOf(request.userId);
    const t = deps.translator.t(language);
    const locale = intlLocale(language);
    const facts = { amount: formatOrderMoney(request.amount, locale), label: escapeHtml(request.label) };
    for (const step of stages) {
      if (await store.requests.wasTold(request.token, step)) continue;
      // Before the notice: a retry after a failed edit edits again, and never sends the notice twice.
      if (step === "payment_received") await showPaidOnCard(request, t, facts);
      try {
        await deps.telegram.sendMessage(request.chatId, t(`request:notice.${step}`, facts), {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
        });
      } catch (error) {
        // The requester blocked the bot or left: nothing to retry, and the payer's own delivery is not theirs.
        if (!(error instanceof GrammyError && (error.error_code === 403 || error.error_code === 400)))
          throw error;
        logger.info({ orderId, code: error.error_code }, "requester unreachable; request notice dropped");
      }
      await store.requests.markTold(request.token, step, deps.now());
    }
  }

  /** The requester's card says the request was paid and loses Share and Cancel (nothing is left to do with it). */
  async function showPaidOnCard(
    request: MoneyRequest,
    t: TFunction,
    facts: { amount: string; label: string },
  ): Promise<void> {
    const cardId = await store.requests.cardOf(request.token);
    if (cardId === undefined) return;
    const caption = t("request:card.paid", { ...facts, name: escapeHtml(request.name) });
    try {
      await deps.telegram.editMessageCaption(request.chatId, cardId, { caption, parse_mode: "HTML" });
    } catch (error) {
      // Deleted, too old, already edited, or the requester blocked the bot: the notice still goes out.
      if (!(error instanceof GrammyError && (error.error_code === 403 || error.error_code === 400)))
        throw error;
    }
  }
}
