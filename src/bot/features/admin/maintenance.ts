import { Composer } from "grammy";
import { escapeHtml } from "../../../i18n/index.ts";
import type { MaintenanceState } from "../../../store/index.ts";
import type { BotContext, BotDeps } from "../../context.ts";
import { mainMenuKeyboard } from "../../keyboards/main-menu.ts";

/**
 * /maintenance on|off [message]: pause new quotes everywhere (every process reads the switch from Redis). Orders
 * already running continue. Users who try to start a transfer get the message instead of a quote.
 *
 * Two layers: `maintenanceGuard()` answers the entry points (/send, /buy, the menu buttons, "send again",
 * "new quote", saved-recipient deep links) before any flow starts; the payout and buy flows also call
 * `quotesPaused()` right before creating a quote, for users who were already mid-flow when ops paused.
 */
export async function quotesPaused(
  deps: Pick<BotDeps, "store">,
): Promise<{ paused: boolean; message?: string }> {
  const state = await deps.store.settings.maintenance();
  return state.paused
    ? { paused: true, ...(state.message ? { message: state.message } : {}) }
    : { paused: false };
}

/** The localized notice users get while paused (HTML). */
export function maintenanceNotice(t: BotContext["t"], state: { message?: string }): string {
  const note = state.message ? `\n\n${escapeHtml(state.message)}` : "";
  return `${t("admin:maintenance.user_notice")}${note}`;
}

/** Callback data of buttons that lead to a new quote (other features' prefixes, matched by shape). */
export const QUOTE_ENTRY_CALLBACKS: RegExp[] = [
  /^menu:(send|buy)$/,
  /^hist:again:/,
  /^rcp:send:/,
  /^order:requote:/,
];

/** Install before the payout and buy features. */
export function maintenanceGuard() {
  const composer = new Composer<BotContext>();

  const refuse = async (ctx: BotContext, next: () => Promise<void>) => {
    const state = await quotesPaused(ctx.deps);
    if (!state.paused) return next();
    if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: ctx.t("admin:maintenance.user_toast") });
    await ctx.reply(maintenanceNotice(ctx.t, state), {
      parse_mode: "HTML",
      reply_markup: mainMenuKeyboard(ctx.t),
    });
  };

  const privateChats = composer.chatType("private");
  privateChats.command(["send", "buy"], refuse);
  // Deep links to a saved recipient (/start send_<token>) open a pre-filled payout.
  privateChats.command("start", (ctx, next) => (/^send_/.test(ctx.match) ? refuse(ctx, next) : next()));
  composer.callbackQuery(QUOTE_ENTRY_CALLBACKS, refuse);
  return composer;
}

/** Ops side: the /maintenance command. */
export async function handleMaintenanceCommand(ctx: BotContext & { match: string }): Promise<void> {
  const mode = ctx.match.trim().split(/\s+/)[0]?.toLowerCase();
  const message = ctx.match
    .trim()
    .slice(mode?.length ?? 0)
    .trim();
  const store = ctx.deps.store;
  if (mode === "on" || mode === "off") {
    const state: MaintenanceState =
      mode === "on"
        ? {
            paused: true,
            ...(message ? { message: message.slice(0, 500) } : {}),
            since: new Date().toISOString(),
            by: ctx.from?.id,
          }
        : { paused: false, since: new Date().toISOString(), by: ctx.from?.id };
    await store.settings.setMaintenance(state);
    await store.audit.record({
      actor: ctx.from?.id ?? "system",
      action: `maintenance.${mode}`,
      details: { message: message ? message.slice(0, 200) : undefined },
    });
    const preview = mode === "on" ? `\n\n${maintenanceNotice(ctx.t, state)}` : "";
    await ctx.reply(`${ctx.t(`admin:maintenance.${mode}`)}${preview}`, { parse_mode: "HTML" });
    return;
  }
  const current = await store.settings.maintenance();
  const status = current.paused
    ? ctx.t("admin:maintenance.status_on", { since: escapeHtml(current.since ?? "?") })
    : ctx.t("admin:maintenance.status_off");
  await ctx.reply(`${status}\n\n${ctx.t("admin:maintenance.usage")}`, { parse_mode: "HTML" });
}
