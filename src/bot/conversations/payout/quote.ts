import type { Quote } from "../../../api/index.ts";
import { requoteCallbackData } from "../../../orders/index.ts";
import type { OrderRecord } from "../../../store/index.ts";
import { payoutAction, payoutConfirmData } from "../../callback-data/payout.ts";
import { maintenanceNotice, quotesPaused } from "../../features/admin/maintenance.ts";
import { describeApiError } from "../../helpers/api-errors.ts";
import { mainMenuKeyboard } from "../../keyboards/main-menu.ts";
import { actionsKeyboard, expiredQuoteKeyboard, quoteKeyboard } from "../../keyboards/payout.ts";
import { quoteValidityMs } from "../../services/payout-quote.ts";
import { confirmOrder, quoteAndRecord, SUPERSEDED, supersede } from "./effects.ts";
import { sendInvoice } from "./invoice.ts";
import { type FlowIo, fromFailure } from "./io.ts";
import { renderQuoteCard } from "./quote-card.ts";
import { type AmountChoice, askButton, type Draft, methodWords } from "./steps.ts";

/**
 * Step 4–5: the quote card (Confirm / Refresh / Cancel) and, on Confirm, the invoice and the status card.
 * One quote per key: the amount message, or the press of Refresh / Try again / New quote.
 */
export type QuoteOutcome = "done" | "cancelled" | { back: "amount"; notice: string };

interface Shown {
  quote: Quote;
  order: OrderRecord;
  deadlineMs: number;
}

export async function quoteAndConfirm(
  io: FlowIo,
  draft: Draft,
  amount: AmountChoice,
  firstKey: string,
): Promise<QuoteOutcome> {
  const { t } = io;
  let key: string | undefined = firstKey;
  let shown: Shown | undefined;

  for (;;) {
    if (key !== undefined) {
      const requestKey = key;
      key = undefined;
      // Ops may have paused new quotes while this user was mid-flow: nothing is quoted, the flow ends politely.
      const pause = await io.conversation.external(() => quotesPaused(io.deps));
      if (pause.paused) {
        await io.ctx.reply(maintenanceNotice(t, pause), { parse_mode: "HTML" });
        return "cancelled";
      }
      const result = await io.call("quote", (deps) =>
        quoteAndRecord(deps, {
          key: requestKey,
          country: draft.country,
          beneficiary: draft.beneficiary,
          amount,
          label: draft.label,
          chatId: io.chatId,
          userId: io.userId,
          ...(draft.recipientId ? { recipientId: draft.recipientId } : {}),
        }),
      );
      if (!result.ok) {
        const described = describeApiError(fromFailure(result.error), t);
        if (/amount too small/i.test(result.error.apiMessage ?? "")) {
          return { back: "amount", notice: t("payout:amount.error.too_small_api") };
        }
        if (!described.retryable) return { back: "amount", notice: described.text };
        await io.show(described.text, actionsKeyboard(t, ["retry", "change_amount"]));
        const { data, queryId } = await askButton(io);
        if (data === payoutAction("change_amount")) return { back: "amount", notice: "" };
        key = queryId;
        continue;
      }
      const receivedAt = await io.conversation.now();
      const { quote, order } = result.value;
      shown = { quote, order, deadlineMs: receivedAt + quoteValidityMs(quote.expiry, receivedAt) };
      const messageId = await io.show(card(io, draft, shown, receivedAt), quoteKeyboard(t, order.orderId));
      await io.call("quote-message", (deps) =>
        deps.store.orders.annotate(order.orderId, { quoteMessageId: messageId }),
      );
    }
    if (!shown) return { back: "amount", notice: "" };
    const current = shown;
    const orderId = current.order.orderId;

    const answer = await io.ask({
      hint: t("payout:hint.quote"),
      requoteOrderId: orderId,
      toast: (data) =>
        data === payoutConfirmData.pack({ orderId }) ? t("payout:quote.confirming") : undefined,
    });
    const { data } = answer.kind === "button" ? answer : { data: "" };
    if (data === payoutAction("refresh") || data === requoteCallbackData(orderId)) {
      await io.call("supersede", (deps) => supersede(deps, orderId, SUPERSEDED.refreshed));
      key = answer.kind === "button" ? answer.queryId : undefined;
      continue;
    }
    if (data === payoutAction("cancel")) {
      await io.call("supersede", (deps) => supersede(deps, orderId, SUPERSEDED.cancelled));
      await io.show(t("payout:quote.cancelled"));
      await io.ctx.reply(t("common:cancelled", { what: t("common:flows.payout") }), {
        reply_markup: mainMenuKeyboard(t),
      });
      return "cancelled";
    }
    if (data !== payoutConfirmData.pack({ orderId })) continue;

    const now = await io.conversation.now();
    const confirmed =
      now < current.deadlineMs
        ? await io.call("confirm", (deps) => confirmOrder(deps, orderId, new Date(now).toISOString()))
        : ({ ok: true, value: { ok: false, reason: "expired" } } as const);
    if (!confirmed.ok) {
      await io.show(
        `${describeApiError(fromFailure(confirmed.error), t).text}\n\n${card(io, draft, current, now)}`,
        quoteKeyboard(t, orderId),
      );
      continue;
    }
    if (!confirmed.value.ok) {
      // Past its time on our clock, or the reconciler already expired it: never hand out a stale invoice.
      await io.call("supersede", (deps) => supersede(deps, orderId));
      await io.show(t("payout:quote.expired"), expiredQuoteKeyboard(t));
      continue;
    }
    await io.show(`${card(io, draft, current, now)}\n\n${t("payout:quote.confirmed")}`);
    await sendInvoice(io, confirmed.value.order, current.quote, current.deadlineMs);
    return "done";
  }
}

function card(io: FlowIo, draft: Draft, shown: Shown, nowMs: number): string {
  return renderQuoteCard(
    {
      quote: shown.quote,
      order: shown.order,
      beneficiary: draft.beneficiary,
      name: draft.name,
      words: methodWords(io),
      deadlineMs: shown.deadlineMs,
      nowMs,
    },
    io.t,
    io.locale,
  );
}
