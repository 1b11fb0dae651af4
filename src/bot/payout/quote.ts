import { InlineKeyboard } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { type ApiFailure, type FlowIo, fromFailure, type Outcome } from "#src/bot/flow/flow-io.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { quoteBudgetText } from "#src/bot/rules/quote-budget.js";
import { supersede } from "#src/bot/rules/supersede.js";
import type { Country } from "#src/money/index.js";
import { formatCancelTime, formatExpiryTime, requoteCallbackData } from "#src/orders/index.js";
import { type Allowance, overLimitNotice } from "./allowance.ts";
import { payoutAction, payoutConfirmData } from "./callback-data.ts";
import { sendInvoice } from "./invoice.ts";
import { actionsKeyboard, expiredQuoteKeyboard, quoteKeyboard } from "./keyboards.ts";
import { type AmountChoice, askButton, type Draft, methodWords } from "./prompts.ts";
import { renderQuoteCard } from "./quote-card.ts";
import { dropRefusedByRequest, gateQuote, holdRequest, recheckAllowance } from "./quote-gate.ts";
import {
  type ConfirmResult,
  confirmOrder,
  type QuoteCard,
  quoteCard,
  quoteDeadlineMs,
  recordedQuote,
} from "./quote-orders.ts";
import type { RequestRefusal } from "./requests/refusals.ts";

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

/** Where the quote step stands between turns of its loop. */
interface QuoteState {
  /** The key of the quote to make next; undefined while the shown card waits for a press. */
  key: string | undefined;
  shown: Shown | undefined;
  /**
   * One user action, one reference at the API: "Try again" after a failed quote keeps the failed attempt's
   * reference and reads the API first (adopting a quote it did make); Refresh or a new amount starts a new one.
   */
  reference: string;
  resolveFirst: boolean;
}

export async function quoteAndConfirm(
  io: FlowIo,
  draft: Draft,
  amount: AmountChoice,
  firstKey: string,
  /** The expired order this flow quotes again ("New quote"), if that is how it started. */
  requoteOf?: string,
): Promise<QuoteOutcome> {
  const state: QuoteState = {
    key: firstKey,
    shown: undefined,
    reference: customerReferenceFor(firstKey),
    resolveFirst: false,
  };
  for (;;) {
    if (state.key !== undefined) {
      const requestKey = state.key;
      state.key = undefined;
      const quoted = await quoteStep(io, draft, amount, state, requestKey, requoteOf);
      if (quoted === "retry") continue;
      if (quoted !== "shown") return quoted;
    }
    if (!state.shown) return { back: "amount", notice: "" };
    const pressed = await onQuoteCard(io, draft, state, state.shown);
    if (pressed !== undefined) return pressed;
  }
}

/** One quote under `requestKey`: the card shown, the user sent back (a limit, an error), or a retry asked for. */
async function quoteStep(
  io: FlowIo,
  draft: Draft,
  amount: AmountChoice,
  state: QuoteState,
  requestKey: string,
  requoteOf: string | undefined,
): Promise<QuoteOutcome | "retry" | "shown"> {
  const { t } = io;
  // A pause ops set mid-flow ends it; an amount in local money over today's limit is refused before any quote.
  const gate = await gateQuote(io, draft.country, amount, "BTCSAT");
  if (gate === "cancelled" || "back" in gate) return gate;
  const { allowance } = gate;
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
      customerReference: state.reference,
      resolveFirst: state.resolveFirst,
    }),
  );
  if (!result.ok) return onQuoteFailure(io, state, result.error);
  state.resolveFirst = false;
  if ("refused" in result.value) {
    await showBudgetRefusal(io, draft, result.value.retryAtMs, state.shown?.quoted.orderId ?? requoteOf);
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
  state.shown = next;
  const messageId = await io.show(
    () => card(io, draft, next, receivedAt),
    () => quoteKeyboard(t, quoted.orderId),
  );
  await io.call("quote-message", async (deps) => {
    await deps.store.orders.annotate(quoted.orderId, { quoteMessageId: messageId });
  });
  return "shown";
}

/** A quote that failed: back to the amount, or Try again (which reads the API before it quotes again). */
async function onQuoteFailure(
  io: FlowIo,
  state: QuoteState,
  error: ApiFailure,
): Promise<QuoteOutcome | "retry"> {
  const { t } = io;
  const described = describeApiError(fromFailure(error), t);
  if (/amount too small/i.test(error.apiMessage ?? "")) {
    return { back: "amount", notice: t("payout:amount.error.too_small_api") };
  }
  if (!described.retryable) return { back: "amount", notice: described.text };
  // Still unknown after reading the API back: say so; the retry reads again before it quotes.
  const text = error.outcomeUnknown ? t("safety:quote.uncertain") : described.text;
  await io.show(text, () => actionsKeyboard(t, ["retry", "change_amount"]));
  const { data, queryId } = await askButton(io);
  if (data === payoutAction("change_amount")) return { back: "amount", notice: "" };
  state.key = queryId;
  state.resolveFirst = true;
  return "retry";
}

/** The shown card's answer: Refresh, Cancel or Confirm (undefined: the loop goes on). */
async function onQuoteCard(
  io: FlowIo,
  draft: Draft,
  state: QuoteState,
  current: Shown,
): Promise<QuoteOutcome | undefined> {
  const { t } = io;
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
    state.key = answer.kind === "button" ? answer.queryId : undefined;
    if (state.key !== undefined) state.reference = customerReferenceFor(state.key);
    return undefined;
  }
  if (data === payoutAction("cancel")) {
    await showCancelled(io, orderId, draft.country);
    await io.reply(() => t("common:cancelled", { what: t("common:flows.payout") }), {
      reply_markup: mainMenuKeyboard(t),
    });
    return "cancelled";
  }
  if (data !== payoutConfirmData.pack({ orderId })) return undefined;
  return onConfirm(io, draft, current);
}

/** Confirm on the card: the invoice and the status card, or why not (the card stays for another try). */
async function onConfirm(io: FlowIo, draft: Draft, current: Shown): Promise<QuoteOutcome | undefined> {
  const { t } = io;
  const orderId = current.quoted.orderId;
  const now = await io.now();
  if (current.allowance) {
    const over = await recheckAllowance(io, draft.country, orderId, current.quoted.figures.receive);
    if (over) return over;
  }
  const confirmed: Outcome<Confirmed> =
    now < current.deadlineMs
      ? await io.call("confirm", (deps) => confirmWithInvoice(deps, draft, current, now))
      : { ok: true, value: { ok: false, reason: "expired" } };
  if (!confirmed.ok) {
    const { error } = confirmed;
    await io.show(
      () => `${describeApiError(fromFailure(error), t).text}\n\n${card(io, draft, current, now)}`,
      () => quoteKeyboard(t, orderId),
    );
    return undefined;
  }
  if (!confirmed.value.ok && confirmed.value.reason === "request") {
    return dropRefusedByRequest(io, orderId, confirmed.value.refusal);
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
    return undefined;
  }
  await io.show(() => `${card(io, draft, current, now)}\n\n${t("payout:quote.confirmed")}`);
  await sendInvoice(io, confirmed.value.order, confirmed.value.invoice, current.deadlineMs);
  return "done";
}

/** The confirm itself (inside `io.call`): the money request held, the invoice read, the order marked confirmed. */
async function confirmWithInvoice(
  deps: BotDeps,
  draft: Draft,
  current: Shown,
  now: number,
): Promise<Confirmed> {
  const orderId = current.quoted.orderId;
  // A money request is paid once: held for this order (until its deadline) before an invoice is handed out.
  const refusal = await holdRequest(deps, draft.requestId, orderId, current.deadlineMs, now);
  if (refusal) return { ok: false, reason: "request", refusal };
  // The invoice first: an order confirmed here always gets its invoice.
  const { invoice } = await recordedQuote(deps, current.key);
  const result = await confirmOrder(deps, orderId, new Date(now).toISOString());
  return result.ok ? { ...result, invoice } : result;
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
