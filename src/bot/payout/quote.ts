import { InlineKeyboard } from "grammy";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { type FlowIo, fromFailure, type Outcome } from "#src/bot/flow/flow-io.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { maintenanceNotice, quotesPaused } from "#src/bot/rules/pauses.js";
import { quoteBudgetText } from "#src/bot/rules/quote-budget.js";
import { supersede } from "#src/bot/rules/supersede.js";
import type { Country } from "#src/money/index.js";
import { formatCancelTime, formatExpiryTime, requoteCallbackData } from "#src/orders/index.js";
import { type Allowance, allowanceFor } from "./allowance.ts";
import { overLimitNotice } from "./allowance-text.ts";
import { payoutAction, payoutConfirmData } from "./callback-data.ts";
import { sendInvoice } from "./invoice.ts";
import { actionsKeyboard, expiredQuoteKeyboard, quoteKeyboard } from "./keyboards.ts";
import { type AmountChoice, askButton, type Draft, methodWords } from "./prompts.ts";
import { renderQuoteCard } from "./quote-card.ts";
import {
  type ConfirmResult,
  confirmOrder,
  type QuoteCard,
  quoteCard,
  recordedQuote,
} from "./quote-orders.ts";
import { quoteDeadlineMs } from "./quote-rules.ts";
import { type RequestRefusal, refusalText } from "./requests/refusals.ts";

/**
 * Step 4–5: the quote card (Confirm / Refresh / Cancel) and, on Confirm, the invoice and the status card.
 * One quote per key: the amount message, or the press of Refresh / Try again / New quote.
 */
type QuoteOutcome = "done" | "cancelled" | { back: "amount"; notice: string };

type Confirmed =
  | Exclude<ConfirmResult, { ok: true }>
  | { ok: false; reason: "request"; refusal: RequestRefusal }
  | (Extract<ConfirmResult, { ok: true }> & { invoice: string });

interface Shown {
  quoted: QuoteCard;
  /** The daily allowance before this payout, where ops set one. */
  allowance?: Allowance;
  /** The idempotency key the quote was made under (its record holds the invoice). */
  key: string;
  deadlineMs: number;
}

export async function quoteAndConfirm(
  io: FlowIo,
  draft: Draft,
  amount: AmountChoice,
  firstKey: string,
  /** The expired order this flow quotes again ("New quote"), if that is how it started. */
  requoteOf?: string,
): Promise<QuoteOutcome> {
  const { t } = io;
  let key: string | undefined = firstKey;
  let shown: Shown | undefined;
  // One user action, one reference at the API: "Try again" after a failed quote keeps the failed attempt's
  // reference and reads the API first (adopting a quote it did make); Refresh or a new amount starts a new one.
  let reference = customerReferenceFor(firstKey);
  let resolveFirst = false;

  for (;;) {
    if (key !== undefined) {
      const requestKey = key;
      key = undefined;
      // Ops may have paused new quotes while this user was mid-flow: nothing is quoted, the flow ends politely.
      const pause = await io.conversation.external(() => quotesPaused(io.deps, draft.country));
      if (pause.paused) {
        await io.reply(() => maintenanceNotice(t, pause), { parse_mode: "HTML" });
        return "cancelled";
      }
      // Where ops set a daily limit: an amount in local money above what is left is refused before any quote.
      const allowance = await currentAllowance(io, draft);
      if (allowance && amount.currency !== "BTCSAT" && amount.minor > allowance.remaining) {
        return { back: "amount", notice: overLimitNotice(io, draft.country, allowance) };
      }
      const result = await io.call("quote", (deps) =>
        quoteCard(deps, {
          key: requestKey,
          country: draft.country,
          beneficiary: draft.beneficiary,
          amount,
          label: draft.label,
          chatId: io.chatId,
          userId: io.userId,
          ...(draft.recipientId ? { recipientId: draft.recipientId } : {}),
          ...(draft.requestId ? { requestId: draft.requestId } : {}),
          customerReference: reference,
          resolveFirst,
        }),
      );
      if (!result.ok) {
        const described = describeApiError(fromFailure(result.error), t);
        if (/amount too small/i.test(result.error.apiMessage ?? "")) {
          return { back: "amount", notice: t("payout:amount.error.too_small_api") };
        }
        if (!described.retryable) return { back: "amount", notice: described.text };
        // Still unknown after reading the API back: say so; the retry reads again before it quotes.
        const text = result.error.outcomeUnknown ? t("safety:quote.uncertain") : described.text;
        await io.show(text, () => actionsKeyboard(t, ["retry", "change_amount"]));
        const { data, queryId } = await askButton(io);
        if (data === payoutAction("change_amount")) return { back: "amount", notice: "" };
        key = queryId;
        resolveFirst = true;
        continue;
      }
      resolveFirst = false;
      if ("refused" in result.value) {
        await showBudgetRefusal(io, draft, result.value.retryAtMs, shown?.quoted.orderId ?? requoteOf);
        return "cancelled";
      }
      const receivedAt = await io.now();
      const quoted = result.value;
      // An amount typed in sats is known in local money only now.
      if (allowance && quoted.figures.receive > allowance.remaining) {
        await io.call("supersede", (deps) => supersede(deps, quoted.orderId, "cancelled"));
        return { back: "amount", notice: overLimitNotice(io, draft.country, allowance) };
      }
      const next: Shown = {
        quoted,
        key: requestKey,
        deadlineMs: quoteDeadlineMs(quoted.expiry, receivedAt),
        ...(allowance ? { allowance } : {}),
      };
      shown = next;
      const messageId = await io.show(
        () => card(io, draft, next, receivedAt),
        () => quoteKeyboard(t, quoted.orderId),
      );
      await io.call("quote-message", async (deps) => {
        await deps.store.orders.annotate(quoted.orderId, { quoteMessageId: messageId });
      });
    }
    if (!shown) return { back: "amount", notice: "" };
    const current = shown;
    const orderId = current.quoted.orderId;

    const answer = await io.ask({
      hint: t("payout:hint.quote"),
      alsoTakes: (data) => data === requoteCallbackData(orderId),
      toast: (data) =>
        data === payoutConfirmData.pack({ orderId }) ? t("payout:quote.confirming") : undefined,
    });
    const { data } = answer.kind === "button" ? answer : { data: "" };
    if (data === payoutAction("refresh") || data === requoteCallbackData(orderId)) {
      await io.call("supersede", (deps) => supersede(deps, orderId, "refreshed"));
      key = answer.kind === "button" ? answer.queryId : undefined;
      if (key !== undefined) reference = customerReferenceFor(key);
      continue;
    }
    if (data === payoutAction("cancel")) {
      await showCancelled(io, orderId, draft.country);
      await io.reply(() => t("common:cancelled", { what: t("common:flows.payout") }), {
        reply_markup: mainMenuKeyboard(t),
      });
      return "cancelled";
    }
    if (data !== payoutConfirmData.pack({ orderId })) continue;

    const now = await io.now();
    if (current.allowance) {
      // Another payout may have been confirmed since this card was shown (an older card's Confirm).
      const fresh = await currentAllowance(io, draft, orderId);
      if (fresh && current.quoted.figures.receive > fresh.remaining) {
        await io.call("supersede", (deps) => supersede(deps, orderId, "cancelled"));
        return { back: "amount", notice: overLimitNotice(io, draft.country, fresh) };
      }
    }
    const confirmed: Outcome<Confirmed> =
      now < current.deadlineMs
        ? await io.call("confirm", async (deps): Promise<Confirmed> => {
            // A money request is paid once: held for this order (until its deadline) before an invoice is handed out.
            if (draft.requestId) {
              const claim = await deps.store.requests.claim(
                draft.requestId,
                orderId,
                current.deadlineMs,
                now,
              );
              if (claim !== "ok") return { ok: false, reason: "request", refusal: claim };
            }
            // The invoice first: an order confirmed here always gets its invoice.
            const { invoice } = await recordedQuote(deps, current.key);
            const result = await confirmOrder(deps, orderId, new Date(now).toISOString());
            return result.ok ? { ...result, invoice } : result;
          })
        : { ok: true, value: { ok: false, reason: "expired" } };
    if (!confirmed.ok) {
      const { error } = confirmed;
      await io.show(
        () => `${describeApiError(fromFailure(error), t).text}\n\n${card(io, draft, current, now)}`,
        () => quoteKeyboard(t, orderId),
      );
      continue;
    }
    if (!confirmed.value.ok && confirmed.value.reason === "request") {
      const { refusal } = confirmed.value;
      await io.call("supersede", (deps) => supersede(deps, orderId, "cancelled"));
      await io.show(() => refusalText(t, refusal));
      return "cancelled";
    }
    if (!confirmed.value.ok) {
      // Past its deadline on the API's clock, or the reconciler already expired it: never hand out a stale invoice.
      await io.call("supersede", (deps) => supersede(deps, orderId, "expired"));
      await io.show(
        () =>
          t("quote:expired.confirm", {
            time: formatExpiryTime({ expiresAt: current.quoted.expiry, corridor: draft.country }, io.locale),
          }),
        () => expiredQuoteKeyboard(t, orderId),
      );
      continue;
    }
    await io.show(() => `${card(io, draft, current, now)}\n\n${t("payout:quote.confirmed")}`);
    await sendInvoice(io, confirmed.value.order, confirmed.value.invoice, current.deadlineMs);
    return "done";
  }
}

/** Cancel on the quote card: its order is cancelled, and the card says when (on the API's clock). */
async function showCancelled(io: FlowIo, orderId: string, country: Country): Promise<void> {
  const dropped = await io.call("supersede", (deps) => supersede(deps, orderId, "cancelled"));
  const at = (dropped.ok ? dropped.value?.cancelledAt : undefined) ?? new Date(await io.now()).toISOString();
  const time = formatCancelTime({ cancelledAt: at, updatedAt: at, corridor: country }, io.locale);
  await io.show(() => io.t("payout:quote.cancelled", { time }));
}

/**
 * The user's quote budget is spent: the screen says when the next quote is possible and the flow ends, so pressing
 * on keeps nothing in Redis. "New quote" quotes the last order again (its record outlives the wait), else the menu.
 */
async function showBudgetRefusal(
  io: FlowIo,
  draft: Draft,
  retryAtMs: number,
  orderId: string | undefined,
): Promise<void> {
  const { t } = io;
  await io.show(
    () => quoteBudgetText(t, io.locale, draft.country, retryAtMs),
    () =>
      orderId
        ? InlineKeyboard.from([
            [InlineKeyboard.text(t("status:button.newQuote"), requoteCallbackData(orderId))],
          ])
        : mainMenuKeyboard(t),
  );
}

/** The user's daily allowance in the draft's corridor (undefined: no limit, or it could not be read). */
async function currentAllowance(io: FlowIo, draft: Draft, except?: string): Promise<Allowance | undefined> {
  const read = await io.call("allowance", (deps) =>
    allowanceFor(deps, io.userId, draft.country, deps.now(), except),
  );
  return read.ok ? read.value : undefined;
}

function card(io: FlowIo, draft: Draft, shown: Shown, nowMs: number): string {
  return renderQuoteCard(
    {
      quoted: shown.quoted,
      ...(shown.allowance ? { allowance: shown.allowance } : {}),
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
