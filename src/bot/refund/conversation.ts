import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { waitForText } from "#src/bot/flow/screen.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import { refundableAmount, renderRefundCard } from "#src/orders/index.js";
import type { OrderRecord, RefundRecord } from "#src/store/index.js";
import { collectBankDestination } from "./bank.ts";
import {
  type Destination,
  MAX_DESTINATION_LENGTH,
  type RefundDestination,
  resolveDestination,
} from "./destination.ts";
import { openRefund, proceedRefund, refundOpening } from "./refunds.ts";

export interface RefundArgs {
  orderId: string;
}

/**
 * "Get my sats back" (or, for a naira-funded order, "Get my naira back": a bank account, see bank.ts): ask where the held sats go (an invoice for exactly the amount, or a Lightning address),
 * check it, then open the refund — the store's gate lets one refund per order through — and show its card. Paying
 * (or asking ops to approve) happens once, inside `conversation.external`, so a replay never repeats it.
 */
export async function refundFlow(conversation: FlowConversation, ctx: FlowContext, args?: RefundArgs) {
  const chatId = ctx.chat?.id;
  const userId = ctx.from?.id;
  if (chatId === undefined || userId === undefined || !args) return;
  const deps = ctx.deps;
  const order = await conversation.external(() => deps.store.orders.get(args.orderId));
  const refundable = order && order.userId === userId ? refundableAmount(order) : undefined;
  if (!order || !refundable) {
    await ctx.reply(ctx.t("refund:not_refundable"));
    return;
  }
  if (refundable.currency === "NGNKOBO") {
    await bankRefundFlow(conversation, ctx, order, refundable.amount);
    return;
  }
  const amountSats = refundable.amount;
  const amount = escapeHtml(formatMoney(amountSats, "BTCSAT", ctx.locale));
  await ctx.reply(ctx.t("refund:ask", { amount, orderId: escapeHtml(order.orderId) }), {
    parse_mode: "HTML",
    reply_markup: { inline_keyboard: [[cancelButton(ctx.t)]] },
  });

  for (;;) {
    const { ctx: current, text } = await waitForText(conversation, (other) =>
      other.reply(other.t("refund:hint", { amount }), { parse_mode: "HTML" }),
    );
    if (text.length > MAX_DESTINATION_LENGTH) {
      await current.reply(current.t("refund:problem.not_recognised", { amount }), { parse_mode: "HTML" });
      continue;
    }
    const destination = await conversation.external(() =>
      resolveDestination(deps, text.trim(), { amountSats, now: Date.now() }),
    );
    // An invoice that carries an order's payment hash, or another refund's, would be settled as theirs.
    if (
      destination.ok &&
      !(await conversation.external(() => reusedHash(deps, destination, order.orderId)))
    ) {
      await submit(conversation, current, order, destination);
      return;
    }
    const problem = destination.ok ? "hash_known" : destination.problem;
    await current.reply(
      current.t(`refund:problem.${problem}`, {
        amount,
        network: escapeHtml(deps.config.bitcoinNetwork),
      }),
      { parse_mode: "HTML" },
    );
  }
}

/** A naira-funded order: the naira go back to a Nigerian bank account the user names and confirms. */
async function bankRefundFlow(
  conversation: FlowConversation,
  ctx: FlowContext,
  order: OrderRecord,
  amountKobo: number,
): Promise<void> {
  const amount = escapeHtml(formatMoney(amountKobo, "NGNKOBO", ctx.locale));
  await ctx.reply(ctx.t("refund:bank.intro", { amount, orderId: escapeHtml(order.orderId) }), {
    parse_mode: "HTML",
  });
  const { ctx: current, destination } = await collectBankDestination(conversation, ctx, amount);
  await submit(conversation, current, order, destination);
}

/**
 * The card goes out first, showing what is about to happen; then one external opens the refund and, if this caller
 * opened it, pays or asks for approval. Opening and paying in the same external leaves no replay point between them.
 */
async function submit(
  conversation: FlowConversation,
  ctx: FlowContext,
  order: OrderRecord,
  destination: RefundDestination,
): Promise<void> {
  const deps = ctx.deps;
  const refundable = refundableAmount(order);
  const amountSats = refundable?.amount ?? 0;
  const now = await conversation.now();
  const draft: RefundRecord = {
    ...refundOpening(deps.config, order, destination, amountSats),
    attempt: 1,
    createdAt: now,
    updatedAt: now,
  };
  const rendered = renderRefundCard(draft, ctx.t, ctx.locale, {
    corridor: order.corridor,
    supportUrl: deps.config.support.contact?.url,
  });
  const card = await ctx.reply(rendered.text, {
    parse_mode: "HTML",
    ...(rendered.keyboard ? { reply_markup: rendered.keyboard } : {}),
  });
  const from = ctx.from;
  const requesterName = from?.username ? `@${from.username}` : (from?.first_name ?? String(order.userId));
  const opened = await conversation.external(async () => {
    const outcome = await openRefund(deps, { order, destination, now: Date.now() });
    if (outcome !== "opened") return outcome;
    await deps.store.refunds.annotate(order.orderId, { cardMessageId: card.message_id });
    await proceedRefund(deps, ctx.api, order.orderId, requesterName);
    return outcome;
  });
  if (opened === "opened") return;
  // Another refund got there first (a second process, a replay), or the invoice's hash became known in between:
  // this card was never a refund; say so on it.
  const text =
    opened === "hash_known"
      ? ctx.t("refund:problem.hash_known", {
          amount: escapeHtml(formatMoney(amountSats, refundable?.currency ?? "BTCSAT", ctx.locale)),
        })
      : ctx.t(`refund:exists.${opened === "not_refundable" ? "not_refundable" : "open"}`);
  await ctx.api.editMessageText(card.chat.id, card.message_id, text).catch(() => undefined);
}

async function reusedHash(
  deps: FlowContext["deps"],
  destination: Extract<Destination, { ok: true }>,
  orderId: string,
): Promise<boolean> {
  return !destination.paymentHash || (await deps.store.refunds.hashKnown(destination.paymentHash, orderId));
}
