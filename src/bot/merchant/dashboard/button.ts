import type { InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { miniAppUrl } from "./routes.ts";

/**
 * With an https PUBLIC_URL: a button opening the Mini App under /links, and the chat's menu button pointing at it
 * (set for this merchant's chat only, so other users keep the command menu).
 */
export async function offerMiniApp(ctx: BotContext, keyboard: InlineKeyboard): Promise<void> {
  const url = miniAppUrl(ctx.deps.config);
  if (!url || ctx.chat?.type !== "private") return;
  const text = ctx.t("merchant:miniapp.open_button");
  keyboard.row().webApp(text, url);
  await ctx.api
    .setChatMenuButton({ chat_id: ctx.chat.id, menu_button: { type: "web_app", text, web_app: { url } } })
    .catch((error: unknown) => ctx.deps.logger.warn({ err: error }, "menu button not set"));
}
