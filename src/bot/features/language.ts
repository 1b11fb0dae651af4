import { Composer, InlineKeyboard } from "grammy";
import { intlLocale, isSupportedLanguage, LANGUAGES } from "../../i18n/index.ts";
import { languageData, menuData } from "../callback-data/index.ts";
import type { BotContext } from "../context.ts";
import { mainMenuKeyboard } from "../keyboards/main-menu.ts";

function pickerKeyboard(current: string): InlineKeyboard {
  const rows = [];
  for (let index = 0; index < LANGUAGES.length; index += 2) {
    rows.push(
      LANGUAGES.slice(index, index + 2).map(({ code, nativeName }) =>
        InlineKeyboard.text(`${code === current ? "✅ " : ""}${nativeName}`, languageData.pack({ code })),
      ),
    );
  }
  return InlineKeyboard.from(rows);
}

/** /language: a picker with each language in its own name; the choice is remembered per user. */
export function languageFeature() {
  const composer = new Composer<BotContext>();

  const showPicker = async (ctx: BotContext) => {
    await ctx.reply(ctx.t("common:language.choose"), { reply_markup: pickerKeyboard(ctx.language) });
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

  return composer;
}
