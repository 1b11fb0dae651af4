import type { BotContext } from "#src/bot/context.js";
import { supersede } from "#src/bot/rules/supersede.js";
import { formatCancelTime } from "#src/orders/index.js";

/** Every flow's conversation id: a product starts another product's flow by name, without importing it. */
export const FLOWS = {
  payout: "payout",
  buy: "buy",
  refund: "refund",
  newlink: "newlink",
  withdraw: "withdraw",
  broadcast: "broadcast",
} as const;

export type FlowName = (typeof FLOWS)[keyof typeof FLOWS];

/** Start a flow. Conversations are not parallel: whatever flow was open gives way to this one. */
export async function enterFlow(ctx: BotContext, flow: FlowName, args?: unknown): Promise<void> {
  await leaveFlows(ctx);
  await ctx.conversation.enter(flow, args);
}

/** How many of the user's newest orders can hold the live quote card of the flow being left. */
const RECENT_ORDERS = 3;

/**
 * Leave whatever flow is open (only one runs at a time) and retire what it leaves on screen: a payout quote card
 * nobody confirmed would otherwise keep Confirm / Refresh / Cancel that no longer lead anywhere. Its order is
 * dropped like the card's own ❌ does (stage `cancelled`, no notification) and the card says "Quote cancelled
 * at" when. Returns the flows that were active.
 */
export async function leaveFlows(ctx: BotContext): Promise<string[]> {
  const active = Object.keys(await ctx.conversation.active());
  if (active.length === 0) return active;
  await ctx.conversation.exitAll();
  if (active.includes(FLOWS.payout)) await retireQuoteCards(ctx);
  return active;
}

async function retireQuoteCards(ctx: BotContext): Promise<void> {
  const userId = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (userId === undefined || chatId === undefined) return;
  const { orders } = await ctx.deps.store.orders.listForUser(userId, 0, RECENT_ORDERS);
  for (const order of orders) {
    const live =
      order.kind === "payout" &&
      order.chatId === chatId &&
      order.stage === "awaiting_payment" &&
      !order.confirmedAt &&
      order.quoteMessageId !== undefined;
    if (!live) continue;
    const dropped = await supersede(ctx.deps, order.orderId, "cancelled");
    // Expired meanwhile (the reconciler's edit says so already) or gone: the card is left as it is.
    if (dropped?.stage !== "cancelled") continue;
    const time = formatCancelTime(dropped, ctx.locale);
    await ctx.api
      .editMessageText(chatId, order.quoteMessageId!, ctx.t("payout:quote.cancelled", { time }))
      .catch(() => undefined);
  }
}
