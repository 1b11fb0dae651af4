import { defineCallbackData } from "./define.ts";

export * from "./define.ts";

/** Main menu entries. */
export const menuData = defineCallbackData("menu", { action: String });
/** Language picker: the language code. */
export const languageData = defineCallbackData("lang", { code: String });
/** Generic "cancel the current flow" button shown on every flow screen. */
export const cancelData = defineCallbackData("cancel", {});
