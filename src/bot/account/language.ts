import { Composer, GrammyError, InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import type { BotContext } from "#src/bot/context.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { languageData, menuData } from "#src/bot/flow/menu-data.js";
import { intlLocale, isSupportedLanguage, LANGUAGES } from "#src/i18n/index.js";
import { type Country, formatClock, isCountry } from "#src/money/index.js";
import { clockData } from "./callback-data/clock.ts";
import { CLOCKS, clockLabel } from "./clock.ts";
import { clockOf } from "./history.ts";

/**
 * The clocks as buttons showing the time on each right now ("🇰🇪 21:24 EAT"): the user taps the one that matches
 * their watch, no zone names to know.
 */
function clockButtons(ctx: BotContext, current: Country): InlineKeyboardButton[] {
  const view = { now: Date.now(), locale: ctx.locale, current };
  return CLOCKS.map((zone) => InlineKeyboard.text(clockLabel(zone, view), clockData.pack({ zone })));
}

function pickerKeyboard(ctx: BotContext, current: string, clock: Country): InlineKeyboard {
  const rows = [];
  for (let index = 0; index < LANGUAGES.length; index += 2) {
    rows.push(
      LANGUAGES.slice(index, index + 2).map(({ code, nativeName }) =>
        InlineKeyboard.text(`${code === current ? "✅ " : ""}${nativeName}`, languageData.pack({ code })),
      ),
    );
  }
  const clocks = clockButtons(ctx, clock);
  rows.push(clocks.slice(0, 2), clocks.slice(2));
  return InlineKeyboard.from(rows);
}

const pickerText = (ctx: BotContext) => `${ctx.t("common:language.choose")}\n\n${ctx.t("clock:prompt")}`;

/** /language: a picker with each language in its own name; the choice is remembered per user. */
export function languageFeature() {
  const composer = new Composer<BotContext>();

  const showPicker = async (ctx: BotContext) => {
    await ctx.reply(pickerText(ctx), {
      reply_markup: pickerKeyboard(ctx, ctx.language, await clockOf(ctx)),
    });
  };
  composer.command("language", showPicker);
  composer.callbackQuery(menuData.filter({ action: "language" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await showPicker(ctx);
  });

  composer.callbackQuery(languageData.filter(), async (ctx) => {
    const { code } = languageData.unpack(ctx.callbackQuery.data);
    if (!isSupportedLanguage(code)) {
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
      return;
    }
    await ctx.deps.store.users.update(ctx.from.id, { language: code });
    ctx.language = code;
    ctx.locale = intlLocale(code);
    ctx.t = ctx.deps.translator.t(code);
    await ctx.answerCallbackQuery({ text: ctx.t("common:language.saved") });
    // A second tap on the same picker finds the message already saying so: nothing to change.
    await ctx
      .editMessageText(ctx.t("common:language.changed"), { reply_markup: mainMenuKeyboard(ctx.t) })
      .catch((error: unknown) => {
        if (!/message is not modified/i.test(String(error))) throw error;
      });
  });

  composer.callbackQuery(clockData.filter(), async (ctx) => {
    const { zone } = clockData.unpack(ctx.callbackQuery.data);
    if (!isCountry(zone)) {
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
      return;
    }
    await ctx.deps.store.users.update(ctx.from.id, { clock: zone });
    await ctx.answerCallbackQuery({
      text: ctx.t("clock:saved", { zone: formatClock(Date.now(), ctx.locale, zone) }),
    });
    try {
      await ctx.editMessageReplyMarkup({ reply_markup: pickerKeyboard(ctx, ctx.language, zone) });
    } catch (error) {
      // The same clock pressed twice: the ✅ is already there.
      if (!(error instanceof GrammyError && /message is not modified/i.test(error.description))) throw error;
    }
  });

  return composer;
}
