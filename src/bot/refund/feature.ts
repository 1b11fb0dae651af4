import { createConversation } from "@grammyjs/conversations";
import { Composer } from "grammy";
import type { BotContext, FlowContext } from "#src/bot/context.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { offersRefund, parseOrderCallback, REFUND_CALLBACK_PATTERN } from "#src/orders/index.js";
import { RETRYABLE_REFUND_STATES } from "#src/store/index.js";
import { type RefundArgs, refundFlow } from "./conversation.ts";
import { onRefundWithdrawalEvent, syncRefundFromApproval } from "./settlement.ts";
import { refundCheck } from "./watch.ts";

/**
 * "Get my sats back" ("Get my naira back" for a naira-funded order) on a status card whose payout failed after the user paid: owner only, only while no refund
 * is under way or done (the store's gate decides again when the refund is opened). A second press while the flow
 * waits for the invoice just says so.
 */
function refundComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.callbackQuery(REFUND_CALLBACK_PATTERN, async (ctx) => {
    const orderId = parseOrderCallback(ctx.callbackQuery.data)?.orderId ?? "";
    const order = await ctx.deps.store.orders.get(orderId);
    if (!order || order.userId !== ctx.from.id || ctx.chat?.type !== "private") {
      await ctx.answerCallbackQuery({ text: ctx.t("refund:toast.not_found") });
      return;
    }
    const refund = await ctx.deps.store.refunds.get(orderId);
    if (!offersRefund(order) || (refund && !RETRYABLE_REFUND_STATES.includes(refund.state))) {
      await ctx.answerCallbackQuery({ text: ctx.t("refund:toast.already") });
      return;
    }
    const active = Object.keys(await ctx.conversation.active());
    if (active.includes(FLOWS.refund)) {
      const waiting = order.pay.currency === "NGNKOBO" ? "refund:toast.waiting_bank" : "refund:toast.waiting";
      await ctx.answerCallbackQuery({ text: ctx.t(waiting) });
      return;
    }
    await ctx.answerCallbackQuery();
    if (active.length > 0) await ctx.conversation.exitAll();
    await ctx.conversation.enter(FLOWS.refund, { orderId } satisfies RefundArgs);
  });
  return composer;
}

export function refundFeature(): Feature {
  return {
    name: "refund",
    conversations: [createConversation<BotContext, FlowContext>(refundFlow, { id: FLOWS.refund })],
    composer: refundComposer(),
    services: (runtime) => ({
      sinks: {
        // A refund's withdrawal is not a merchant's traffic: it moves the refund and stops here.
        paymentLink: (event) => onRefundWithdrawalEvent(runtime.deps, runtime.telegram, event),
        approvalChanged: (record) => syncRefundFromApproval(runtime.deps, runtime.telegram, record),
        opsCheck: { name: "refunds", run: refundCheck(runtime) },
      },
    }),
  };
}
