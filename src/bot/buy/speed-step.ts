import type { Speed } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { askSpeed as askOnchainSpeed } from "#src/bot/flow/onchain-steps.js";
import { BUY_SCREEN } from "./screens.ts";

/** "⚡ Fast · about 10–30 min" (spec 8's expected confirmation times). */
const speedLabel = (ctx: Pick<FlowContext, "t">, speed: Speed) => ctx.t(`buy:speed.${speed}`);

/** Step 2: slow / medium / fast, each with its expected time. */
export async function askSpeed(conversation: FlowConversation, ctx: FlowContext): Promise<Speed> {
  const { speed } = await askOnchainSpeed(conversation, ctx, {
    ...BUY_SCREEN,
    prompt: ctx.t("buy:speed.prompt"),
    label: speedLabel,
    hint: (current) => current.t("buy:speed.press_button"),
    chosen: (current, chosen) => current.t("buy:speed.chosen", { speed: speedLabel(current, chosen) }),
  });
  return speed;
}
