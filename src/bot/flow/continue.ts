import type { Conversation, ConversationFlavor } from "@grammyjs/conversations";
import type { Context, MiddlewareFn } from "grammy";
import type { FlowName } from "./enter.ts";

/**
 * A flow that goes on as a fresh conversation of itself. The conversations plugin replays a conversation's whole
 * log on every update, so each step of a long flow pays again for every step before it (the payout flow's amount
 * and quote steps replayed 22 and 29 operations, 19 of them from the country, bank and account screens). Where all
 * the rest of a flow needs fits in its arguments, `continueAsNew` ends the conversation and the same update enters
 * the flow again with them (`continuation`, installed right after the flow's conversation): later updates replay
 * only what came after.
 *
 * Nothing is lost or done twice across a crash: the old conversation's end and the new one's start are one write of
 * the chat's conversation state, made with the update's acknowledgement; an update handled again replays the old
 * conversation to the same point and hands over again, and the Telegram calls the new conversation makes keep their
 * place in the update's numbered calls (updates/calls.ts).
 */
interface Handover {
  flow: FlowName;
  args: unknown;
}

/** Handovers waiting for the middleware after the conversation, by the update's outside context. */
const handovers = new WeakMap<Context, Handover>();

/** End this conversation; the same update enters `flow` again with `args` (JSON, like any conversation argument). */
export async function continueAsNew<OC extends Context, C extends Context>(
  conversation: Conversation<OC, C>,
  flow: FlowName,
  args: unknown,
): Promise<never> {
  await conversation.external((outside) => {
    handovers.set(outside, { flow, args });
  });
  // `next`: the update goes on to `continuation`, with the conversation already gone from the chat's state.
  return await conversation.halt({ next: true });
}

/** Installed right after `flow`'s conversation: enters it again for a handover; anything else goes on. */
export function continuation<C extends ConversationFlavor<Context>>(flow: FlowName): MiddlewareFn<C> {
  return async (ctx, next) => {
    const handover = handovers.get(ctx);
    if (handover?.flow !== flow) return next();
    handovers.delete(ctx);
    await ctx.conversation.enter(flow, handover.args);
  };
}
