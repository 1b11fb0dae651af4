import type { Speed } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { askAddress as askOnchainAddress, askSpeed as askOnchainSpeed } from "#src/bot/flow/onchain-steps.js";
import { askScreen, clearButtons, type ScreenButton, type ScreenInput } from "#src/bot/flow/screen.js";
import { newlinkData } from "#src/bot/merchant/callback-data.js";
import { addressPrefixesText } from "#src/bot/rules/bitcoin-address.js";
import { MIN_ONCHAIN_SATS } from "#src/bot/rules/onchain.js";
import { minorFor, priceServiceFor } from "#src/bot/rules/price.js";
import { quoteInput } from "#src/i18n/index.js";
import { formatMoney, parseAmount } from "#src/money/index.js";

/** Room for the API's ~0.6% fee above the smallest on-chain settlement. */
const FEE_ROOM = 1.01;

/** One step: a prompt with optional buttons (always ❌) that accepts text and/or those buttons. */
export async function ask(
  conversation: FlowConversation,
  ctx: FlowContext,
  text: string,
  options: { buttons?: ScreenButton[][]; acceptText?: boolean; hint?: string } = {},
): Promise<ScreenInput> {
  const { messageId, input } = await askScreen(conversation, ctx, {
    text,
    rows: options.buttons ?? [],
    codec: newlinkData,
    acceptText: options.acceptText ?? true,
    hint: (current) => options.hint ?? current.t("merchant:newlink.hint"),
  });
  await clearButtons(input.ctx, messageId);
  return input;
}

/** Free text of bounded length. */
export async function askLine(
  conversation: FlowConversation,
  ctx: FlowContext,
  prompt: string,
  maxLength: number,
  skip?: string,
): Promise<{ value: string | undefined; ctx: FlowContext }> {
  let text = prompt;
  for (;;) {
    const input = await ask(conversation, ctx, text, {
      ...(skip ? { buttons: [[{ label: skip, action: "skip" }]] } : {}),
    });
    if (input.kind === "button") return { value: undefined, ctx: input.ctx };
    const value = input.text.trim();
    if (value.length > 0 && value.length <= maxLength) return { value, ctx: input.ctx };
    ctx = input.ctx;
    text = ctx.t("merchant:newlink.too_long", { max: maxLength });
  }
}

/** Kobo needed for the 6000-sat minimum at today's price, rounded up to ₦100; undefined without a price. */
async function minimumKobo(conversation: FlowConversation, ctx: FlowContext): Promise<number | null> {
  const deps = ctx.deps;
  return conversation.external(async () => {
    try {
      const price = await priceServiceFor(deps).get("NG");
      return Math.ceil(minorFor(price, Math.ceil(MIN_ONCHAIN_SATS * FEE_ROOM)) / 10_000) * 10_000;
    } catch {
      return null;
    }
  });
}

export async function askAmount(
  conversation: FlowConversation,
  ctx: FlowContext,
  problem?: string,
): Promise<{ amount: number; ctx: FlowContext }> {
  const minimum = await minimumKobo(conversation, ctx);
  const minText =
    minimum === null
      ? ""
      : ctx.t("merchant:newlink.amount_minimum", {
          amount: formatMoney(minimum, "NGNKOBO", ctx.locale),
          sats: formatMoney(MIN_ONCHAIN_SATS, "BTCSAT", ctx.locale),
        });
  let text = `${problem ? `${problem}\n\n` : ""}${ctx.t("merchant:newlink.amount_prompt")}${minText}`;
  let current = ctx;
  for (;;) {
    const input = await ask(conversation, current, text);
    current = input.ctx;
    if (input.kind !== "text") continue;
    const parsed = parseAmount(input.text, { currency: "NGNKOBO", locale: current.locale });
    if (!parsed.ok) {
      text = `${current.t("merchant:newlink.amount_invalid")}${minText}`;
      continue;
    }
    if (minimum !== null && parsed.minor < minimum) {
      text = current.t("merchant:newlink.amount_too_small", {
        amount: formatMoney(parsed.minor, "NGNKOBO", current.locale),
        minimum: formatMoney(minimum, "NGNKOBO", current.locale),
        sats: formatMoney(MIN_ONCHAIN_SATS, "BTCSAT", current.locale),
      });
      continue;
    }
    return { amount: parsed.minor, ctx: current };
  }
}

export async function askAddress(
  conversation: FlowConversation,
  ctx: FlowContext,
): Promise<{ address: string; ctx: FlowContext }> {
  const network = ctx.deps.config.bitcoinNetwork;
  const prefixes = addressPrefixesText(network, ctx.t);
  return askOnchainAddress(conversation, ctx, {
    codec: newlinkData,
    prompt: ctx.t("merchant:newlink.address_prompt", { network, prefixes }),
    hint: (current) => current.t("merchant:newlink.hint"),
    problem: (current, check) =>
      current.t("merchant:newlink.address_invalid", { network, prefixes, reason: check.reason }),
  });
}

export function askSpeed(
  conversation: FlowConversation,
  ctx: FlowContext,
): Promise<{ speed: Speed; ctx: FlowContext }> {
  return askOnchainSpeed(conversation, ctx, {
    codec: newlinkData,
    prompt: ctx.t("merchant:newlink.speed_prompt"),
    label: (current, speed) => current.t(`merchant:speed.${speed}`),
    hint: (current) => current.t("merchant:newlink.button_hint"),
  });
}

export async function askCallbackUrl(
  conversation: FlowConversation,
  ctx: FlowContext,
): Promise<{ url: string | undefined; ctx: FlowContext }> {
  let text = ctx.t("merchant:newlink.callback_prompt");
  let current = ctx;
  for (;;) {
    const input = await ask(conversation, current, text, {
      buttons: [[{ label: current.t("merchant:newlink.skip"), action: "skip" }]],
    });
    current = input.ctx;
    if (input.kind === "button") return { url: undefined, ctx: current };
    const url = checkCallbackUrl(input.text);
    if (url) return { url, ctx: current };
    text = current.t("merchant:newlink.callback_invalid", { url: quoteInput(input.text, 100) });
  }
}

/** http(s) only, with a host; returned normalised. */
function checkCallbackUrl(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) return undefined;
    return url.toString();
  } catch {
    return undefined;
  }
}
