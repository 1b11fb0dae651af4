import { InlineKeyboard } from "grammy";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { settleScreen } from "#src/bot/flow/screen.js";
import { MIN_ONCHAIN_SATS } from "#src/bot/rules/onchain.js";
import { minorFor, priceServiceFor, type SpotPrice, satsFor } from "#src/bot/rules/price.js";
import { quoteInput } from "#src/i18n/index.js";
import {
  formatMoney,
  isoOf,
  type ParseAmountResult,
  parseAmount,
  resolveNumberLocale,
} from "#src/money/index.js";
import { buyData } from "./callback-data.ts";
import { type BuyAmount, type BuyAmountCurrency, waitForInput } from "./screens.ts";

type Unit = "NGN" | "SAT";
const CURRENCY_OF: Record<Unit, BuyAmountCurrency> = { NGN: "NGNKOBO", SAT: "BTCSAT" };
const EXAMPLE_MAJOR: Record<Unit, number> = { NGN: 50_000, SAT: 50_000 };

const example = (ctx: FlowContext, unit: Unit) =>
  new Intl.NumberFormat(resolveNumberLocale(ctx.locale)).format(EXAMPLE_MAJOR[unit]);

/** Naira needed for the minimum, rounded up to whole naira ("about ₦9,000"); an estimate before fees. */
function approxMinimum(ctx: FlowContext, price: SpotPrice | undefined): string {
  if (!price) return "";
  const kobo = Math.ceil(minorFor(price, MIN_ONCHAIN_SATS) / 100) * 100;
  return ctx.t("buy:amount.approx", { amount: formatMoney(kobo, "NGNKOBO", ctx.locale) });
}

function promptText(ctx: FlowContext, unit: Unit, price: SpotPrice | undefined): string {
  const minSats = formatMoney(MIN_ONCHAIN_SATS, "BTCSAT", ctx.locale);
  return unit === "NGN"
    ? ctx.t("buy:amount.prompt_ngn", {
        example: example(ctx, unit),
        minSats,
        approx: approxMinimum(ctx, price),
      })
    : ctx.t("buy:amount.prompt_sat", { example: example(ctx, unit), minSats });
}

function promptKeyboard(ctx: FlowContext, unit: Unit): InlineKeyboard {
  const other: Unit = unit === "NGN" ? "SAT" : "NGN";
  const label = other === "SAT" ? ctx.t("buy:amount.switch_to_sat") : ctx.t("buy:amount.switch_to_ngn");
  return InlineKeyboard.from([
    [InlineKeyboard.text(label, buyData.pack({ action: "unit", value: other }))],
    [cancelButton(ctx.t)],
  ]);
}

/** A typed amount in naira or sats (either unit is fine whatever the toggle says), or a parse failure. */
function readAmount(text: string, unit: Unit, locale: string): ParseAmountResult {
  const result = parseAmount(text, { currency: CURRENCY_OF[unit], allowBtcUnits: true, locale });
  if (
    !result.ok &&
    result.reason === "wrong_currency" &&
    (result.detected === "NGNKOBO" || result.detected === "BTCSAT") &&
    result.detectedMinor !== undefined
  ) {
    // "₦50,000" typed while the toggle says sats: the user was clear about the unit.
    return result.detectedMinor > 0
      ? { ok: true, minor: result.detectedMinor, currency: result.detected }
      : { ok: false, reason: "zero" };
  }
  return result;
}

function parseProblem(
  ctx: FlowContext,
  result: Extract<ParseAmountResult, { ok: false }>,
  unit: Unit,
): string {
  const values = { example: example(ctx, unit) };
  switch (result.reason) {
    case "too_many_decimals":
      return ctx.t(`buy:amount.invalid.too_many_decimals_${unit === "NGN" ? "ngn" : "sat"}`, values);
    case "wrong_currency":
      return ctx.t("buy:amount.invalid.wrong_currency", {
        // What the user typed, as people write it (KES, USD), never our internal unit codes.
        currency: quoteInput(result.foreign ?? (result.detected ? isoOf(result.detected) : "?"), 8),
      });
    default:
      return ctx.t(`buy:amount.invalid.${result.reason}`, values);
  }
}

/**
 * Step 3: the amount, in naira (what the user spends) or sats (what they get), switchable with a button. The
 * minimum (6000 sats) is stated up front and checked here for sats; for naira the spot price gives an estimate and
 * the API has the last word (its "Amount too small" brings the user back here).
 */
export async function askAmount(
  conversation: FlowConversation,
  ctx: FlowContext,
  options: { problem?: string } = {},
): Promise<BuyAmount & { messageId: number }> {
  const deps = ctx.deps;
  // null, not undefined: external results are stored as JSON.
  const price =
    (await conversation.external(() =>
      priceServiceFor(deps)
        .get("NG")
        .catch(() => null),
    )) ?? undefined;
  let unit: Unit = "NGN";
  if (options.problem) await ctx.reply(options.problem, { parse_mode: "HTML" });
  const prompt = await ctx.reply(promptText(ctx, unit, price), {
    parse_mode: "HTML",
    reply_markup: promptKeyboard(ctx, unit),
  });
  for (;;) {
    const input = await waitForInput(conversation, {
      messageId: prompt.message_id,
      actions: ["unit"],
      acceptText: true,
      hint: (current) => current.t("buy:amount.not_text"),
    });
    const current = input.ctx;
    if (input.kind === "button") {
      await current.answerCallbackQuery();
      unit = input.value === "SAT" ? "SAT" : "NGN";
      await current
        .editMessageText(promptText(current, unit, price), {
          parse_mode: "HTML",
          reply_markup: promptKeyboard(current, unit),
        })
        .catch(() => undefined);
      continue;
    }
    const result = readAmount(input.text, unit, current.locale);
    if (!result.ok) {
      await current.reply(parseProblem(current, result, unit), { parse_mode: "HTML" });
      continue;
    }
    const currency: BuyAmountCurrency = result.currency === "BTCSAT" ? "BTCSAT" : "NGNKOBO";
    const minSats = formatMoney(MIN_ONCHAIN_SATS, "BTCSAT", current.locale);
    if (currency === "BTCSAT" && result.minor < MIN_ONCHAIN_SATS) {
      await current.reply(current.t("buy:amount.below_minimum", { minSats }), { parse_mode: "HTML" });
      continue;
    }
    if (currency === "NGNKOBO" && price && satsFor(price, result.minor) < MIN_ONCHAIN_SATS) {
      await current.reply(
        current.t("buy:amount.below_minimum_ngn", {
          amount: formatMoney(result.minor, "NGNKOBO", current.locale),
          sats: formatMoney(satsFor(price, result.minor), "BTCSAT", current.locale),
          minSats,
          approx: approxMinimum(current, price),
        }),
        { parse_mode: "HTML" },
      );
      continue;
    }
    const accepted = current.t(
      currency === "BTCSAT" ? "buy:amount.accepted_sat" : "buy:amount.accepted_ngn",
      {
        amount: formatMoney(result.minor, currency, current.locale),
      },
    );
    await settleScreen(current, prompt.message_id, accepted);
    return { minor: result.minor, currency, messageId: input.messageId };
  }
}
