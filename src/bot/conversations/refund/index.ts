import { escapeHtml } from "../../../i18n/index.ts";
import { formatMoney } from "../../../money/index.ts";
import { refundableSats, renderRefundCard } from "../../../orders/index.ts";
import type { FlowContext, FlowConversation } from "../../context.ts";
import { cancelButton } from "../../keyboards/main-menu.ts";
import {
  MAX_DESTINATION_LENGTH,
  openRefund,
  proceedRefund,
  resolveDestination,
} from "../../services/refunds.ts";

export const REFUND_CONVERSATION = "refund";

export interface RefundArgs {
  orderId: string;
}

/**
 * "Get my sats back": ask where the held sats go (an invoice for exactly the amount, or a Lightning address),
 * check it, then open the refund — the store's gate lets one refund per order through — and show its card. Paying
 * (or asking ops to approve) happens once, inside `conversation.external`, so a replay never repeats it.
 */
export async function refundFlow(conversation: FlowConversation, ctx: FlowContext, args?: RefundArgs) {
  const chatId = ctx.chat?.id;
  const userId = ctx.from?.id;
  if (chatId === undefined || userId === undefined || !args) return;
  const deps = ctx.deps;
  const order = await conversation.external(() => deps.store.orders.get(args.orderId));
  const amountSats = order && order.userId === userId ? refundableSats(order) : undefined;
  if (!order || amountSats === undefined) {
    await ctx.reply(ctx.t("refund:not_refundable"));
    return;
  }
  const amount = escapeHtml(formatMoney(amountSats, "BTCSAT", ctx.locale));
  await ctx.reply(ctx.t("refund:ask", { amount, orderId: escapeHtml(order.orderId) }), {
    parse_mode: "HTML",
    reply_markup: { inline_keyboard: [[cancelButton(ctx.t)]] },
  });

  let current: FlowContext = ctx;
  for (;;) {
    current = await conversation.wait();
    const text = current.message?.text;
    // Other buttons and commands keep working while the flow waits (/cancel is handled before it).
    if (current.callbackQuery || text?.startsWith("/")) await conversation.skip({ next: true });
    if (text === undefined) {
      await current.reply(current.t("refund:hint", { amount }), { parse_mode: "HTML" });
      continue;
    }
    if (text.length > MAX_DESTINATION_LENGTH) {
      await current.reply(current.t("refund:problem.not_recognised", { amount }), { parse_mode: "HTML" });
      continue;
    }
    const destination = await conversation.external(() =>
      resolveDestination(deps, text.trim(), { amountSats, now: Date.now() }),
    );
    if (destination.ok) {
      const opened = await conversation.external(() =>
        openRefund(deps, { order, destination, now: Date.now() }),
      );
      if (opened !== "opened") {
        await current.reply(
          current.t(`refund:exists.${opened === "not_refundable" ? "not_refundable" : "open"}`),
        );
        return;
      }
      break;
    }
    await current.reply(
      current.t(`refund:problem.${destination.problem}`, {
        amount,
        network: escapeHtml(deps.config.bitcoinNetwork),
      }),
      { parse_mode: "HTML" },
    );
  }

  const refund = await conversation.external(() => deps.store.refunds.get(order.orderId));
  if (!refund) return;
  const rendered = renderRefundCard(refund, current.t, current.locale, {
    corridor: order.corridor,
    supportUrl: deps.config.support.contact?.url,
  });
  const card = await current.reply(rendered.text, {
    parse_mode: "HTML",
    ...(rendered.keyboard ? { reply_markup: rendered.keyboard } : {}),
  });
  const from = current.from;
  const requesterName = from?.username ? `@${from.username}` : (from?.first_name ?? String(userId));
  await conversation.external(async () => {
    await deps.store.refunds.annotate(order.orderId, { cardMessageId: card.message_id });
    await proceedRefund(deps, current.api, order.orderId, requesterName);
  });
}
