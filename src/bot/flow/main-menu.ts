import { InlineKeyboard } from "grammy";
import type { TFunction } from "#src/i18n/index.js";
import { cancelData, menuData } from "./menu-data.ts";

const MENU_ACTIONS = [
  "send",
  "request",
  "buy",
  "history",
  "recipients",
  "price",
  "language",
  "help",
] as const;
type MenuAction = (typeof MENU_ACTIONS)[number];

export function mainMenuKeyboard(t: TFunction): InlineKeyboard {
  const button = (action: MenuAction) =>
    InlineKeyboard.text(t(`common:menu.${action}`), menuData.pack({ action }));
  return InlineKeyboard.from([
    [button("send")],
    [button("request")],
    [button("buy")],
    [button("history"), button("recipients")],
    [button("price"), button("language")],
    [button("help")],
  ]);
}

/** The ❌ button every flow screen carries. */
export function cancelButton(t: TFunction) {
  return InlineKeyboard.text(t("common:cancel_button"), cancelData.pack({}));
}
