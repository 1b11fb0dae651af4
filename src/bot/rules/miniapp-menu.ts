import type { Api } from "grammy";
import type { Config } from "#src/config.js";
import type { Logger } from "#src/log/logger.js";

/** Where the merchant Mini App is served (src/bot/merchant/dashboard/routes.ts). */
export const MINIAPP_PATH = "/miniapp";

/** The Mini App's public address: only with an https PUBLIC_URL (Telegram opens web apps over https only). */
export function miniAppUrl(config: Config): string | undefined {
  const base = config.http.publicUrl;
  return base?.startsWith("https://") ? `${base.replace(/\/+$/, "")}${MINIAPP_PATH}/` : undefined;
}

/**
 * A merchant's chat menu button: the Mini App while they are an approved merchant (`text` in their language), the
 * bot's default (its command list) once revoked. Set for that chat only, so other users keep the command menu. A
 * refusal is logged, never fatal: the /links button opens the app too.
 */
export async function setMerchantMenuButton(
  deps: { telegram: Api; config: Config; logger: Logger },
  chatId: number,
  text: string | undefined,
): Promise<void> {
  const url = miniAppUrl(deps.config);
  if (!url) return;
  const menu_button =
    text === undefined ? { type: "default" as const } : { type: "web_app" as const, text, web_app: { url } };
  await deps.telegram
    .setChatMenuButton({ chat_id: chatId, menu_button })
    .catch((error: unknown) => deps.logger.warn({ err: error }, "menu button not set"));
}
