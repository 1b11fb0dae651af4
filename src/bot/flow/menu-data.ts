import { LANGUAGES } from "../../i18n/languages.ts";
import { defineCallbackData, oneOf } from "../../telegram/callback-data.ts";

/** Main menu entries. */
export const menuData = defineCallbackData("menu", {
  action: oneOf("send", "request", "buy", "history", "recipients", "price", "language", "help"),
});
/** Language picker: the language code. */
export const languageData = defineCallbackData("lang", { code: oneOf(...LANGUAGES.map(({ code }) => code)) });
/** Generic "cancel the current flow" button shown on every flow screen. */
export const cancelData = defineCallbackData("cancel", {});
