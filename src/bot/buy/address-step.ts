import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { askAddress as askOnchainAddress } from "#src/bot/flow/onchain-steps.js";
import {
  type AddressCheck,
  addressPrefixesText,
  type BitcoinNetworkSetting,
} from "#src/bot/rules/bitcoin-address.js";
import { escapeHtml } from "#src/i18n/index.js";
import { BUY_SCREEN } from "./screens.ts";

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
  const { address } = await askOnchainAddress(conversation, ctx, {
    ...BUY_SCREEN,
    prompt: ctx.t("buy:address.prompt", { network: ctx.t(`buy:address.network.${network}`), prefixes }),
    hint: (current) => current.t("buy:address.not_text", { prefixes }),
    problem: (current, check) => addressProblemText(current, check, network),
    accepted: (current, accepted) => current.t("buy:address.accepted", { address: escapeHtml(accepted) }),
  });
  return address;
}
