import type { InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { miniAppUrl, setMerchantMenuButton } from "#src/bot/rules/miniapp-menu.js";

/**
 * With an https PUBLIC_URL: a button opening the Mini App under /links, and the chat's menu button pointing at it
 * (ops' approval sets it too; this keeps it for a merchant approved before there was a PUBLIC_URL).
 */
export async function offerMiniApp(ctx: BotContext, keyboard: InlineKeyboard): Promise<void> {
  const url = miniAppUrl(ctx.deps.config);
  if (!url || ctx.chat?.type !== "private") return;
  const text = ctx.t("merchant:miniapp.open_button");
  keyboard.row().webApp(text, url);
  await setMerchantMenuButton({ ...ctx.deps, telegram: ctx.api }, ctx.chat.id, text);
}
