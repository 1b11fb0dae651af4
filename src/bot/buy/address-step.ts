import { escapeHtml } from "../../i18n/index.ts";
import type { FlowContext, FlowConversation } from "../context.ts";
import { clearButtons } from "../flow/screen.ts";
import {
  type AddressCheck,
  addressPrefixesText,
  type BitcoinNetworkSetting,
  checkBitcoinAddress,
} from "../rules/bitcoin-address.ts";
import { cancelKeyboard, waitForInput } from "./screens.ts";

/** Why an address was refused, in the user's language, with what to send instead. */
function addressProblemText(
  ctx: FlowContext,
  check: Extract<AddressCheck, { ok: false }>,
  network: BitcoinNetworkSetting,
): string {
  const prefixes = addressPrefixesText(network, ctx.t);
  if (check.reason === "wrong_network") {
    return ctx.t("buy:address.invalid.wrong_network", {
      found: ctx.t(`buy:address.network.${check.found ?? "mainnet"}`),
      expected: ctx.t(`buy:address.network.${network}`),
      prefixes,
    });
  }
  return ctx.t(`buy:address.invalid.${check.reason}`, { prefixes });
}

/** Step 1: the on-chain address, checked for the configured network before anything is quoted. */
export async function askAddress(conversation: FlowConversation, ctx: FlowContext): Promise<string> {
  const network = ctx.deps.config.bitcoinNetwork;
  const prefixes = addressPrefixesText(network, ctx.t);
  const prompt = await ctx.reply(
    ctx.t("buy:address.prompt", { network: ctx.t(`buy:address.network.${network}`), prefixes }),
    { parse_mode: "HTML", reply_markup: cancelKeyboard(ctx) },
  );
  for (;;) {
    const input = await waitForInput(conversation, {
      messageId: prompt.message_id,
      actions: [],
      acceptText: true,
      hint: (current) => current.t("buy:address.not_text", { prefixes }),
    });
    if (input.kind !== "text") continue;
    const check = checkBitcoinAddress(input.text, network);
    if (check.ok) {
      await clearButtons(input.ctx, prompt.message_id);
      await input.ctx.reply(input.ctx.t("buy:address.accepted", { address: escapeHtml(check.address) }), {
        parse_mode: "HTML",
      });
      return check.address;
    }
    await input.ctx.reply(addressProblemText(input.ctx, check, network), {
      parse_mode: "HTML",
      reply_markup: cancelKeyboard(input.ctx),
    });
  }
}
