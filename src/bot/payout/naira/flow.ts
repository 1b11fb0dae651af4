import type { BotDeps } from "#src/bot/context.js";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { type ApiFailure, type FlowIo, fromFailure, type Outcome } from "#src/bot/flow/flow-io.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { customerReferenceFor } from "#src/bot/rules/customer-reference.js";
import { quoteBudgetText } from "#src/bot/rules/quote-budget.js";
import { supersede } from "#src/bot/rules/supersede.js";
import { formatCancelTime, formatExpiryTime, requoteCallbackData } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { type Allowance, overLimitNotice } from "../allowance.ts";
import { payoutAction, payoutConfirmData } from "../callback-data.ts";
import { actionsKeyboard, expiredQuoteKeyboard } from "../keyboards.ts";
import { askButton, type Draft, methodWords } from "../prompts.ts";
import { dropRefusedByRequest, gateQuote, holdRequest, recheckAllowance } from "../quote-gate.ts";
import { type ConfirmResult, confirmOrder, quoteDeadlineMs } from "../quote-orders.ts";
import type { RequestRefusal } from "../requests/refusals.ts";
import { askNairaAmount } from "./amount.ts";
import { nairaCardKeyboard, renderNairaCard } from "./card.ts";
import { type NairaQuoteInput, nairaMinimum, nairaQuote } from "./quote.ts";
import { sendNairaStatus } from "./status.ts";

/**
 * The naira-funded part of the payout flow, from the amount to the status card: amount (in the target currency or
 * in naira) → quote card (the virtual account, copy buttons, Confirm / Refresh / Cancel) → on Confirm, the card
 * keeps its copy buttons and the one status card follows, which the events pipeline edits from then on.
 */
export type NairaOutcome = "done" | "cancelled" | "lightning" | "change_recipient";
export type Back = { back: "amount"; notice: string };
type Amount = NairaQuoteInput["amount"];
interface Attempt {
  reference: string;
  resolveFirst: boolean;
}
type Confirmed = ConfirmResult | { ok: false; reason: "request"; refusal: RequestRefusal };

interface Shown {
  order: OrderRecord;
  roundedFrom?: number;
  allowance?: Allowance;
  deadlineMs: number;
}

export async function nairaPayout(
  io: FlowIo,
  draft: Draft,
  lightningMinimum: number | undefined,
  firstNotice?: string,
): Promise<NairaOutcome> {
  const minimum = nairaMinimum(draft.country, lightningMinimum);
  let notice: string | undefined = firstNotice;
  let mode: Amount["currency"] | undefined;
  for (;;) {
    const answer = await askNairaAmount(io, draft, minimum, notice, mode);
    notice = undefined;
    if (typeof answer === "string") return answer;
    mode = answer.amount.currency;
    const outcome = await nairaQuoteAndConfirm(io, draft, answer.amount, answer.key);
    if (outcome === "done" || outcome === "cancelled") return outcome;
    notice = outcome.notice || undefined;
  }
}

/**
 * The quote card and Confirm for an amount in the recipient's money or in naira: also how a money request or a
 * repeat send is paid in naira, its amount already set.
 */
export async function nairaQuoteAndConfirm(
  io: FlowIo,
  draft: Draft,
  amount: Amount,
  firstKey: string,
): Promise<"done" | "cancelled" | Back> {
  let key: string | undefined = firstKey;
  let shown: Shown | undefined;
  // One user action, one reference at the API: "Try again" keeps it and reads the API first (adopting a quote the
  // lost answer did make); Refresh or "New quote" starts a new one.
  const attempt: Attempt = { reference: customerReferenceFor(firstKey), resolveFirst: false };
  for (;;) {
    if (key !== undefined) {
      const quoted = await quoteStep(io, draft, amount, key, attempt);
      key = undefined;
      if (typeof quoted === "object" && "retry" in quoted) {
        [key, attempt.resolveFirst] = [quoted.retry, true];
        continue;
      }
      attempt.resolveFirst = false;
      if (typeof quoted === "string" || "back" in quoted) return quoted;
      shown = quoted;
    }
    if (!shown) return { back: "amount", notice: "" } satisfies Back;
    const pressed = await onCard(io, draft, shown);
    if (typeof pressed === "object" || pressed === "done" || pressed === "cancelled") return pressed;
    if (pressed !== undefined) {
      key = pressed.slice("key:".length);
      attempt.reference = customerReferenceFor(key);
    }
  }
}

/** A quote whose answer failed: back to the amount, or "Try again" (`retry`: the press, the next quote's key). */
async function onQuoteFailure(io: FlowIo, error: ApiFailure): Promise<Back | { retry: string }> {
  const { t } = io;
  if (/amount too small/i.test(error.apiMessage ?? "")) {
    return { back: "amount", notice: t("payout:amount.error.too_small_api") };
  }
  const described = describeApiError(fromFailure(error), t);
  if (!described.retryable) return { back: "amount", notice: described.text };
  // Still unknown after reading the API back: say so; the retry reads again before it would quote anew.
  const text = error.outcomeUnknown ? t("safety:quote.uncertain") : described.text;
  await io.show(text, () => actionsKeyboard(t, ["retry", "change_amount"]));
  const { data, queryId } = await askButton(io);
  if (data === payoutAction("change_amount")) return { back: "amount", notice: "" };
  return { retry: queryId };
}

/** One quote under `key`: its card shown, or the user sent back to the amount (a limit, an error). */
async function quoteStep(
  io: FlowIo,
  draft: Draft,
  amount: Amount,
  key: string,
  attempt: Attempt,
): Promise<Shown | Back | "cancelled" | { retry: string }> {
  const { t } = io;
  const gate = await gateQuote(io, draft.country, amount, "NGNKOBO");
  if (gate === "cancelled" || "back" in gate) return gate;
  const { allowance } = gate;
  const result = await io.call("naira-quote", (deps) =>
    nairaQuote(deps, {
      key,
      country: draft.country,
      beneficiary: draft.beneficiary,
      amount,
      label: draft.label,
      chatId: io.chatId,
      userId: io.userId,
      ...(draft.recipientId ? { recipientId: draft.recipientId } : {}),
      ...(draft.requestId ? { requestId: draft.requestId } : {}),
      customerReference: attempt.reference,
      resolveFirst: attempt.resolveFirst,
    }),
  );
  if (!result.ok) return onQuoteFailure(io, result.error);
  if ("refused" in result.value) {
    const { retryAtMs } = result.value;
    await io.show(() => quoteBudgetText(t, io.locale, draft.country, retryAtMs), mainMenuKeyboard(t));
    return "cancelled";
  }
  const { order, roundedFrom } = result.value;
  // An amount typed in naira is known in the recipient's money only now.
  if (allowance && order.receive.amount > allowance.remaining) {
    await io.call("supersede", (deps) => supersede(deps, order.orderId, "cancelled"));
    return { back: "amount", notice: overLimitNotice(io, draft.country, allowance) };
  }
  const receivedAt = await io.now();
  const shown: Shown = {
    order,
    deadlineMs: quoteDeadlineMs(order.expiresAt, receivedAt),
    ...(roundedFrom !== undefined ? { roundedFrom } : {}),
    ...(allowance ? { allowance } : {}),
  };
  const messageId = await io.show(
    () => card(io, draft, shown, receivedAt),
    () => nairaCardKeyboard(order, t),
  );
  await io.call("quote-message", async (deps) => {
    await deps.store.orders.annotate(order.orderId, { quoteMessageId: messageId });
  });
  return shown;
}

/** The card's answer: Refresh or "New quote" (`key:` + the press), Cancel, Confirm; undefined: wait on. */
async function onCard(
  io: FlowIo,
  draft: Draft,
  shown: Shown,
): Promise<"done" | "cancelled" | Back | `key:${string}` | undefined> {
  const { t } = io;
  const { orderId } = shown.order;
  const answer = await io.ask({
    hint: t("naira:hint.quote"),
    alsoTakes: (data) => data === requoteCallbackData(orderId),
  });
  if (answer.kind !== "button") return undefined;
  if (answer.data === payoutAction("refresh") || answer.data === requoteCallbackData(orderId)) {
    await io.call("supersede", (deps) => supersede(deps, orderId, "refreshed"));
    return `key:${answer.queryId}`;
  }
  if (answer.data === payoutAction("cancel")) {
    const dropped = await io.call("supersede", (deps) => supersede(deps, orderId, "cancelled"));
    const at =
      (dropped.ok ? dropped.value?.cancelledAt : undefined) ?? new Date(await io.now()).toISOString();
    const time = formatCancelTime({ cancelledAt: at, updatedAt: at, corridor: draft.country }, io.locale);
    await io.show(() => t("payout:quote.cancelled", { time }));
    await io.reply(() => t("common:cancelled", { what: t("common:flows.payout") }), {
      reply_markup: mainMenuKeyboard(t),
    });
    return "cancelled";
  }
  if (answer.data !== payoutConfirmData.pack({ orderId })) return undefined;
  return onConfirm(io, draft, shown);
}

/** Confirm: the order confirmed on the API's clock before its deadline, or the card turned into "expired". */
async function onConfirm(
  io: FlowIo,
  draft: Draft,
  shown: Shown,
): Promise<"done" | "cancelled" | Back | undefined> {
  const { t } = io;
  const { orderId } = shown.order;
  const now = await io.now();
  if (shown.allowance) {
    const over = await recheckAllowance(io, draft.country, orderId, shown.order.receive.amount);
    if (over) return over;
  }
  const confirmed: Outcome<Confirmed> =
    now < shown.deadlineMs
      ? await io.call("confirm", (deps) => confirmNaira(deps, draft, shown, now))
      : { ok: true, value: { ok: false, reason: "expired" } };
  if (!confirmed.ok) {
    const text = describeApiError(fromFailure(confirmed.error), t).text;
    await io.show(
      () => `${text}\n\n${card(io, draft, shown, now)}`,
      () => nairaCardKeyboard(shown.order, t),
    );
    return undefined;
  }
  if (!confirmed.value.ok && confirmed.value.reason === "request") {
    return dropRefusedByRequest(io, orderId, confirmed.value.refusal);
  }
  if (!confirmed.value.ok) {
    // Past its deadline (or already expired by the reconciler): its account must never be offered again.
    await io.call("supersede", (deps) => supersede(deps, orderId, "expired"));
    const time = formatExpiryTime(shown.order, io.locale);
    await io.show(
      () => t("naira:quote.expired", { time }),
      () => expiredQuoteKeyboard(t, orderId),
    );
    return undefined;
  }
  const order = confirmed.value.order;
  await io.show(
    () => card(io, draft, shown, now, true),
    () => nairaCardKeyboard(order, t, true),
  );
  await sendNairaStatus(io, order);
  return "done";
}

/** The confirm itself (inside `io.call`): a money request held for this order first, then the order confirmed. */
async function confirmNaira(deps: BotDeps, draft: Draft, shown: Shown, now: number): Promise<Confirmed> {
  const { orderId } = shown.order;
  const refusal = await holdRequest(deps, draft.requestId, orderId, shown.deadlineMs, now);
  if (refusal) return { ok: false, reason: "request", refusal };
  return confirmOrder(deps, orderId, new Date(now).toISOString());
}

function card(io: FlowIo, draft: Draft, shown: Shown, nowMs: number, confirmed = false): string {
  return renderNairaCard(
    {
      order: shown.order,
      beneficiary: draft.beneficiary,
      name: draft.name,
      words: methodWords(io),
      nowMs,
      confirmed,
      ...(shown.roundedFrom !== undefined ? { roundedFrom: shown.roundedFrom } : {}),
      ...(shown.allowance ? { allowance: shown.allowance } : {}),
    },
    io.t,
    io.locale,
  );
}
