import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import { priceServiceFor, type SpotPrice, satsValue } from "#src/bot/rules/price.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";
import {
  COUNTRIES,
  COUNTRY_FLAGS,
  type Country,
  currencyOfCountry,
  formatDateTime,
  formatMoney,
  isCountry,
  isoOf,
} from "#src/money/index.js";
import { rateAlertNewData } from "./alerts/callback-data.ts";
import { priceData } from "./callback-data/price.ts";

const SAMPLE_SATS = 10_000;
const COUNTRY_OF_CURRENCY: Record<string, Country> = Object.fromEntries(
  COUNTRIES.map((country) => [isoOf(currencyOfCountry(country)), country]),
);

/** "/price ke", "/price KES", "/price 🇰🇪"? Country or currency codes, any case; undefined for anything else. */
export function parseCountryArgument(argument: string): Country | undefined {
  const value = argument.trim().toUpperCase();
  if (isCountry(value)) return value;
  return COUNTRY_OF_CURRENCY[value];
}

/** The country whose price to show first: the region of the user's locale when it is one of ours (sw-KE → KE). */
export function defaultCountry(locale: string): Country {
  const region = locale.split(/[-_]/)[1]?.toUpperCase();
  return isCountry(region) ? region : "NG";
}

export function priceText(ctx: Pick<BotContext, "t" | "locale">, price: SpotPrice): string {
  const money = (minor: number) => escapeHtml(formatMoney(minor, price.currency, ctx.locale));
  const lines = [
    ctx.t("price:title", {
      country: ctx.t(`price:country.${price.country}`),
      flag: COUNTRY_FLAGS[price.country],
    }),
    "",
    ctx.t("price:btc", { amount: money(price.perBtc) }),
    ...(price.perUsd !== undefined ? [ctx.t("price:usd", { amount: money(price.perUsd) })] : []),
    ctx.t("price:sats", {
      sats: escapeHtml(formatMoney(SAMPLE_SATS, "BTCSAT", ctx.locale)),
      amount: money(satsValue(price, SAMPLE_SATS)),
    }),
    "",
    ctx.t("price:updated", { time: escapeHtml(formatDateTime(price.at, ctx.locale, price.country)) }),
    ctx.t("price:note"),
  ];
  return lines.join("\n");
}

function priceKeyboard(t: BotContext["t"], current: Country): InlineKeyboard {
  return InlineKeyboard.from([
    COUNTRIES.map((country) =>
      InlineKeyboard.text(
        `${country === current ? "✅ " : ""}${COUNTRY_FLAGS[country]} ${country}`,
        priceData.pack({ country }),
      ),
    ),
    [InlineKeyboard.text(t("ratealert:price_button"), rateAlertNewData.pack({ country: current }))],
  ]);
}

async function priceScreen(
  ctx: BotContext,
  country: Country,
): Promise<{ text: string; keyboard: InlineKeyboard }> {
  try {
    const price = await priceServiceFor(ctx.deps).get(country);
    return { text: priceText(ctx, price), keyboard: priceKeyboard(ctx.t, country) };
  } catch (error) {
    ctx.deps.logger.warn({ err: error, country }, "price lookup failed");
    return {
      text: ctx.t("price:unavailable", { country: ctx.t(`price:country.${country}`) }),
      keyboard: priceKeyboard(ctx.t, country),
    };
  }
}

/** /price [NG|KE|ZA|GH] and the menu's "Prices": 1 BTC, 1 USD and 10,000 sats in local money, switchable. */
function priceComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command("price", async (ctx) => {
    const argument = ctx.match.trim();
    const country = argument ? parseCountryArgument(argument) : defaultCountry(ctx.locale);
    if (!country) {
      await ctx.reply(ctx.t("price:bad_argument", { value: quoteInput(argument, 32) }), {
        parse_mode: "HTML",
        reply_markup: priceKeyboard(ctx.t, defaultCountry(ctx.locale)),
      });
      return;
    }
    const { text, keyboard } = await priceScreen(ctx, country);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  });

  composer.callbackQuery(menuData.filter({ action: "price" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { text, keyboard } = await priceScreen(ctx, defaultCountry(ctx.locale));
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  });

  composer.callbackQuery(priceData.filter(), async (ctx) => {
    const { country } = priceData.unpack(ctx.callbackQuery.data) as { country: string };
    if (!isCountry(country)) {
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
      return;
    }
    await ctx.answerCallbackQuery();
    const { text, keyboard } = await priceScreen(ctx, country);
    await ctx
      .editMessageText(text, { parse_mode: "HTML", reply_markup: keyboard })
      .catch((error: unknown) => {
        if (!/message is not modified/i.test(String(error))) throw error;
      });
  });

  return composer;
}

export function priceFeature(): Feature {
  return { name: "price", composer: priceComposer() };
}
