import type { InlineKeyboard } from "grammy";
import type { Speed } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { type AddressCheck, checkBitcoinAddress } from "#src/bot/rules/bitcoin-address.js";
import { isSpeed, SPEEDS } from "#src/bot/rules/onchain.js";
import {
  askScreen,
  type Codec,
  clearButtons,
  screenKeyboard,
  settleScreen,
  waitForScreen,
} from "./screen.ts";

/**
 * The two steps every on-chain settlement asks for — where the bitcoin goes, and how fast — shared by /buy and
 * /newlink. Each flow brings its own buttons (codec) and words; the steps are the same.
 */
interface OnchainScreen {
  codec: Codec;
  /** Unknown commands in a private chat: passed on (default) or answered with the hint. */
  commands?: "pass" | "hint";
  /** Buttons under the hint (e.g. ❌). */
  hintKeyboard?(ctx: FlowContext): InlineKeyboard;
}

/**
 * The on-chain address, checked for the configured network before anything is quoted. A refused address gets a
 * new screen saying why (the previous one loses its ❌); an accepted one may be confirmed in a line of its own.
 */
export async function askAddress(
  conversation: FlowConversation,
  ctx: FlowContext,
  step: OnchainScreen & {
    prompt: string;
    hint(ctx: FlowContext): string;
    problem(ctx: FlowContext, check: Extract<AddressCheck, { ok: false }>): string;
    accepted?(ctx: FlowContext, address: string): string;
  },
): Promise<{ address: string; ctx: FlowContext }> {
  const network = ctx.deps.config.bitcoinNetwork;
  let text = step.prompt;
  let current = ctx;
  for (;;) {
    const { messageId, input } = await askScreen(conversation, current, {
      text,
      rows: [],
      codec: step.codec,
      acceptText: true,
      hint: step.hint,
      ...(step.commands ? { commands: step.commands } : {}),
      ...(step.hintKeyboard ? { hintKeyboard: step.hintKeyboard } : {}),
    });
    await clearButtons(input.ctx, messageId);
    current = input.ctx;
    if (input.kind !== "text") continue;
    const check = checkBitcoinAddress(input.text, network);
    if (check.ok) {
      if (step.accepted) await current.reply(step.accepted(current, check.address), { parse_mode: "HTML" });
      return { address: check.address, ctx: current };
    }
    text = step.problem(current, check);
  }
}

/** Slow / medium / fast, one button each; the screen then says what was chosen, or just loses its buttons. */
export async function askSpeed(
  conversation: FlowConversation,
  ctx: FlowContext,
  step: OnchainScreen & {
    prompt: string;
    label(ctx: Pick<FlowContext, "t">, speed: Speed): string;
    hint(ctx: FlowContext): string;
    chosen?(ctx: FlowContext, speed: Speed): string;
  },
): Promise<{ speed: Speed; ctx: FlowContext }> {
  const keyboard = screenKeyboard(
    ctx,
    step.codec,
    SPEEDS.map((speed) => [{ label: step.label(ctx, speed), action: "speed", value: speed }]),
  );
  const prompt = await ctx.reply(step.prompt, { parse_mode: "HTML", reply_markup: keyboard });
  for (;;) {
    const input = await waitForScreen(conversation, {
      codec: step.codec,
      messageId: prompt.message_id,
      actions: ["speed"],
      acceptText: false,
      hint: step.hint,
      ...(step.commands ? { commands: step.commands } : {}),
      ...(step.hintKeyboard ? { hintKeyboard: step.hintKeyboard } : {}),
    });
    if (input.kind !== "button") continue;
    if (!isSpeed(input.value)) {
      await input.ctx.answerCallbackQuery({ text: input.ctx.t("common:stale_button") });
      continue;
    }
    await input.ctx.answerCallbackQuery();
    if (step.chosen) await settleScreen(input.ctx, prompt.message_id, step.chosen(input.ctx, input.value));
    else await clearButtons(input.ctx, prompt.message_id);
    return { speed: input.value, ctx: input.ctx };
  }
}
