import { LANGUAGES } from "#src/i18n/languages.js";
import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

/** Main menu entries. */
export const menuData = defineCallbackData("menu", {
  action: oneOf("send", "request", "buy", "history", "recipients", "price", "language", "help"),
});
/** Language picker: the language code. */
export const languageData = defineCallbackData("lang", { code: oneOf(...LANGUAGES.map(({ code }) => code)) });
/** Generic "cancel the current flow" button shown on every flow screen. */
export const cancelData = defineCallbackData("cancel", {});
