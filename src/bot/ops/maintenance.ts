import { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import {
  activePause,
  applyMaintenanceCommand,
  maintenanceNotice,
  parseMaintenanceCommand,
  pausedScopes,
  quotesPaused,
  scopeNames,
} from "#src/bot/rules/pauses.js";
import { formatOpsTime } from "#src/money/index.js";
import type { PauseScope } from "#src/store/index.js";

/** Callback data of buttons that lead to a new quote (other features' prefixes, matched by shape). */
const BUY_ENTRY_CALLBACK = /^menu:buy$/;
const QUOTE_ENTRY_CALLBACKS: RegExp[] = [
  /^menu:send$/,
  BUY_ENTRY_CALLBACK,
  /^hist:again:/,
  /^rcp:send:/,
  /^order:requote:/,
  /^ra-send:/,
];

/**
 * /maintenance on|off [NG KE ZA GH BUY] [30m|2h] [message]: pause new quotes everywhere or for some corridors, until
 * resumed or for a while (every process reads the switch from Redis). Orders already running continue. Users who
 * try to start a transfer get the notice (what is paused, that their money is safe, when to try again).
 *
 * Two layers: `maintenanceGuard()` answers the entry points (/send, /buy, the menu buttons, "send again",
 * "new quote", saved-recipient deep links) before any flow starts; the payout and buy flows also call
 * `quotesPaused()` right before creating a quote (with their corridor), for users who were already mid-flow when ops
 * paused, and the country picker marks and refuses paused countries.
 *
 * Install before the payout and buy features.
 */
export function maintenanceGuard() {
  const composer = new Composer<BotContext>();

  // Buying has its own switch; a payout's corridor is known only inside the flow (the picker and the quote step).
  const refuse = (scope?: PauseScope) => async (ctx: BotContext, next: () => Promise<void>) => {
    const state = await quotesPaused(ctx.deps, scope);
    if (!state.paused) return next();
    if (ctx.callbackQuery) {
      const toast = state.scope === "BUY" ? "admin:maintenance.toast_buy" : "admin:maintenance.user_toast";
      await ctx.answerCallbackQuery({ text: ctx.t(toast) });
    }
    await ctx.reply(maintenanceNotice(ctx.t, state), {
      parse_mode: "HTML",
      reply_markup: mainMenuKeyboard(ctx.t),
    });
  };

  const privateChats = composer.chatType("private");
  privateChats.command("send", refuse());
  privateChats.command("buy", refuse("BUY"));
  // Deep links to a saved recipient (/start send_<token>) open a pre-filled payout.
  privateChats.command("start", (ctx, next) => (/^send_/.test(ctx.match) ? refuse()(ctx, next) : next()));
  composer.callbackQuery(BUY_ENTRY_CALLBACK, refuse("BUY"));
  composer.callbackQuery(
    QUOTE_ENTRY_CALLBACKS.filter((pattern) => pattern !== BUY_ENTRY_CALLBACK),
    refuse(),
  );
  return composer;
}

/** Ops side: the /maintenance command. */
export async function handleMaintenanceCommand(ctx: BotContext & { match: string }): Promise<void> {
  const store = ctx.deps.store;
  const command = parseMaintenanceCommand(ctx.match);
  const now = Date.now();
  if (command.mode === "on" || command.mode === "off") {
    const state = applyMaintenanceCommand(await store.settings.maintenance(), command, now, ctx.from?.id);
    await store.settings.setMaintenance(state);
    const scopes = command.scopes.length > 0 ? command.scopes.join(",") : "all";
    await store.audit.record({
      actor: ctx.from?.id ?? "system",
      action: `maintenance.${command.mode}`,
      details: {
        scopes,
        ...(command.mode === "on" && command.durationMs ? { minutes: command.durationMs / 60_000 } : {}),
        ...(command.mode === "on" && command.message ? { message: command.message.slice(0, 200) } : {}),
      },
    });
    const names = scopeNames(ctx.t, command.scopes);
    if (command.mode === "off") {
      await ctx.reply(ctx.t("admin:maintenance.off_for", { scopes: names }), { parse_mode: "HTML" });
      return;
    }
    const until = command.durationMs
      ? ctx.t("admin:maintenance.until", { time: formatOpsTime(now + command.durationMs, ctx.locale) })
      : ctx.t("admin:maintenance.until_resumed");
    const preview = maintenanceNotice(ctx.t, {
      scope: command.scopes.length === 1 ? (command.scopes[0] as PauseScope) : "all",
      ...(command.message ? { message: command.message } : {}),
      ...(command.durationMs ? { retryInMs: command.durationMs } : {}),
    });
    await ctx.reply(`${ctx.t("admin:maintenance.on_for", { scopes: names, until })}\n\n${preview}`, {
      parse_mode: "HTML",
    });
    return;
  }
  const current = await store.settings.maintenance();
  const line = (scope: "all" | PauseScope, since?: string, until?: string) =>
    ctx.t("admin:maintenance.status_line", {
      scopes: scopeNames(ctx.t, [scope]),
      since: since ? formatOpsTime(Date.parse(since), ctx.locale) : "?",
      until: until
        ? ctx.t("admin:maintenance.until", { time: formatOpsTime(Date.parse(until), ctx.locale) })
        : ctx.t("admin:maintenance.until_resumed"),
    });
  const lines: string[] = [];
  if (activePause(current, undefined, now)) lines.push(line("all", current.since, current.until));
  for (const scope of pausedScopes(current, now)) {
    lines.push(line(scope, current.scopes?.[scope]?.since, current.scopes?.[scope]?.until));
  }
  const status = lines.length > 0 ? lines.join("\n") : ctx.t("admin:maintenance.status_off");
  const problem = command.mode === "invalid" ? `${ctx.t("admin:maintenance.invalid")}\n\n` : "";
  await ctx.reply(`${problem}${status}\n\n${ctx.t("admin:maintenance.usage")}`, { parse_mode: "HTML" });
}
