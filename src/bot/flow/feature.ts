import type { Composer, Middleware } from "grammy";
import type { BotContext } from "#src/bot/context.js";

/**
 * A feature contributes conversations (installed before any handler, so an active flow sees its updates first),
 * handlers, and commands for the published menus.
 */
export interface Feature {
  name: string;
  conversations?: Middleware<BotContext>[];
  composer?: Composer<BotContext>;
  commands?: { private?: string[]; adminGroup?: string[] };
}
