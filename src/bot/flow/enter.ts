import type { BotContext } from "#src/bot/context.js";

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

/**
 * Leave whatever flow is open (only one runs at a time) and retire what it leaves on screen: the feature that owns
 * the flow says how (its `onLeave`, e.g. a quote card nobody confirmed loses its buttons). Returns the flows that
 * were active.
 */
export async function leaveFlows(ctx: BotContext): Promise<string[]> {
  const active = Object.keys(await ctx.conversation.active());
  if (active.length === 0) return active;
  await ctx.conversation.exitAll();
  for (const exit of ctx.flowExits ?? []) if (active.includes(exit.flow)) await exit.run(ctx);
  return active;
}
