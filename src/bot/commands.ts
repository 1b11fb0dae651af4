import type { Api } from "grammy";
import type { LanguageCode as TelegramLanguageCode } from "grammy/types";
import { LANGUAGES, type Translator } from "#src/i18n/index.js";

/** The private-chat command menu, in the order BotFather shows it. */
export const USER_COMMANDS = [
  "start",
  "send",
  "request",
  "requests",
  "buy",
  "status",
  "history",
  "recipients",
  "repeats",
  "price",
  "language",
  "myid",
  "help",
  "cancel",
] as const;

/**
 * Telegram keys command menus by two-letter ISO 639-1 codes only: Pidgin (pcm) has none, so Pidgin speakers see
 * the default (English) menu while the bot itself speaks Pidgin to them.
 */
export const TELEGRAM_MENU_LANGUAGES = LANGUAGES.filter((language) => language.code.length === 2);

/** Extra commands registered by other features (merchant tools, ops group) before the menu is published. */
interface CommandMenus {
  /** Private chats, merchant-only commands are listed for everyone (they explain themselves to non-merchants). */
  privateExtra: string[];
  /** Commands shown in the admin group only. */
  adminGroup: string[];
}

/**
 * Register the translated command menus: a default list, one per shipped language (language_code), and a separate
 * list for the ops group when configured.
 */
export async function publishCommandMenus(
  api: Api,
  translator: Translator,
  options: { adminChatId?: number; menus?: Partial<CommandMenus> } = {},
): Promise<void> {
  const privateCommands = [...USER_COMMANDS, ...(options.menus?.privateExtra ?? [])];
  const describe = (language: (typeof LANGUAGES)[number]["code"], commands: readonly string[], ns: string) =>
    commands.map((command) => ({
      command,
      description: translator.t(language)(`${ns}:commands.${command}`).slice(0, 256),
    }));
  await api.setMyCommands(describe("en", privateCommands, "common"), {
    scope: { type: "all_private_chats" },
  });
  for (const { code } of TELEGRAM_MENU_LANGUAGES) {
    await api.setMyCommands(describe(code, privateCommands, "common"), {
      scope: { type: "all_private_chats" },
      language_code: code as TelegramLanguageCode,
    });
  }
  const adminCommands = options.menus?.adminGroup ?? [];
  if (options.adminChatId !== undefined && adminCommands.length > 0) {
    const scope = { type: "chat", chat_id: options.adminChatId } as const;
    await api.setMyCommands(describe("en", adminCommands, "admin"), { scope });
    for (const { code } of TELEGRAM_MENU_LANGUAGES) {
      await api.setMyCommands(describe(code, adminCommands, "admin"), {
        scope,
        language_code: code as TelegramLanguageCode,
      });
    }
  }
}
