import { Composer } from "grammy";
import { USER_COMMANDS } from "#src/bot/commands.js";
import type { BotContext } from "#src/bot/context.js";
import { leaveFlows } from "./enter.ts";
import { mainMenuKeyboard } from "./main-menu.ts";
import { cancelData, menuData } from "./menu-data.ts";

/**
 * Installed between `conversations()` and the conversations themselves, so it sees updates before an active flow:
 * /cancel (or ❌) leaves the flow and says what was dropped; any other menu command or main-menu button leaves the
 * flow silently and carries on to its own handler.
 */
export function cancelFeature() {
  const composer = new Composer<BotContext>();

  const cancel = async (ctx: BotContext) => {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    const active = await leaveFlows(ctx);
    if (active.length === 0) {
      await ctx.reply(ctx.t("common:nothing_to_cancel"), { reply_markup: mainMenuKeyboard(ctx.t) });
      return;
    }
    if (ctx.callbackQuery?.message) await ctx.editMessageReplyMarkup().catch(() => undefined);
    const dropped = active.map((name) =>
      ctx.t(`common:flows.${name}`, { defaultValue: ctx.t("common:flows.default") }),
    );
    await ctx.reply(ctx.t("common:cancelled", { what: dropped.join(", ") }), {
      reply_markup: mainMenuKeyboard(ctx.t),
    });
  };

  composer.command("cancel", cancel);
  composer.callbackQuery(cancelData.filter(), cancel);

  const escapeCommands = USER_COMMANDS.filter((command) => command !== "cancel");
  composer.command(escapeCommands, async (ctx, next) => {
    await leaveFlows(ctx);
    await next();
  });
  composer.callbackQuery(menuData.filter(), async (ctx, next) => {
    await leaveFlows(ctx);
    await next();
  });

  return composer;
}
