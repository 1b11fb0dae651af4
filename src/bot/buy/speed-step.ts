import type { Speed } from "../../api/index.ts";
import type { FlowContext, FlowConversation } from "../context.ts";
import { screenKeyboard, settleScreen } from "../flow/screen.ts";
import { isSpeed, SPEEDS } from "../rules/onchain.ts";
import { buyData } from "./callback-data.ts";
import { waitForInput } from "./screens.ts";

/** "⚡ Fast · about 10–30 min" (spec 8's expected confirmation times). */
const speedLabel = (ctx: Pick<FlowContext, "t">, speed: Speed) => ctx.t(`buy:speed.${speed}`);

/** Step 2: slow / medium / fast, each with its expected time. */
export async function askSpeed(conversation: FlowConversation, ctx: FlowContext): Promise<Speed> {
  const keyboard = screenKeyboard(
    ctx,
    buyData,
    SPEEDS.map((speed) => [{ label: speedLabel(ctx, speed), action: "speed", value: speed }]),
  );
  const prompt = await ctx.reply(ctx.t("buy:speed.prompt"), { parse_mode: "HTML", reply_markup: keyboard });
  for (;;) {
    const input = await waitForInput(conversation, {
      messageId: prompt.message_id,
      actions: ["speed"],
      acceptText: false,
      hint: (current) => current.t("buy:speed.press_button"),
    });
    if (input.kind !== "button") continue;
    if (!isSpeed(input.value)) {
      await input.ctx.answerCallbackQuery({ text: input.ctx.t("common:stale_button") });
      continue;
    }
    await input.ctx.answerCallbackQuery();
    await settleScreen(
      input.ctx,
      prompt.message_id,
      input.ctx.t("buy:speed.chosen", { speed: speedLabel(input.ctx, input.value) }),
    );
    return input.value;
  }
}
