import type { TFunction } from "i18next";
import type { BotDeps } from "#src/bot/context.js";
import { escapeHtml } from "#src/i18n/index.js";
import { type MaintenanceState, PAUSE_SCOPES, type PauseScope, type PauseState } from "#src/store/index.js";

/**
 * Ops pauses (/maintenance), as pure functions: which pause applies to a corridor now, what the command's
 * arguments mean, and the notice users get (what is paused, that their money is safe, and when to try again).
 */
interface ActivePause {
  /** "all": everything is paused; otherwise the corridor that is. */
  scope: "all" | PauseScope;
  message?: string;
  /** Milliseconds until the pause lapses by itself (absent: until ops resume). */
  retryInMs?: number;
}

const live = (pause: PauseState, now: number) => !pause.until || Date.parse(pause.until) > now;

function active(scope: ActivePause["scope"], pause: PauseState, now: number): ActivePause {
  return {
    scope,
    ...(pause.message ? { message: pause.message } : {}),
    ...(pause.until ? { retryInMs: Math.max(0, Date.parse(pause.until) - now) } : {}),
  };
}

/** The pause that stops a new quote for `scope` (undefined: only the pause of everything counts). */
export function activePause(
  state: MaintenanceState,
  scope: PauseScope | undefined,
  now: number,
): ActivePause | undefined {
  if (state.paused && live(state, now)) return active("all", state, now);
  const own = scope ? state.scopes?.[scope] : undefined;
  return scope && own && live(own, now) ? active(scope, own, now) : undefined;
}

/** Corridors paused on their own right now (the country picker marks them). */
export function pausedScopes(state: MaintenanceState, now: number): PauseScope[] {
  return PAUSE_SCOPES.filter((scope) => {
    const own = state.scopes?.[scope];
    return own !== undefined && live(own, now);
  });
}

type MaintenanceCommand =
  | { mode: "on"; scopes: PauseScope[]; durationMs?: number; message?: string }
  | { mode: "off"; scopes: PauseScope[] }
  | { mode: "status" }
  | { mode: "invalid" };

/** Longest pause with an end time: beyond two days ops should resume by hand. */
const MAX_DURATION_MS = 48 * 3_600_000;

/**
 * `/maintenance on [NG KE ZA GH BUY | all] [30m | 2h] [message]`, `/maintenance off [scopes]`, `/maintenance`.
 * Scopes may be separated by spaces or commas; no scope (or "all") means everything.
 */
export function parseMaintenanceCommand(text: string): MaintenanceCommand {
  const rest = text.trim();
  if (rest === "") return { mode: "status" };
  const tokens = rest.split(/\s+/);
  const mode = tokens[0]?.toLowerCase();
  if (mode !== "on" && mode !== "off") return { mode: "invalid" };
  let index = 1;
  const scopes = new Set<PauseScope>();
  let all = false;
  for (; index < tokens.length; index += 1) {
    const parts = (tokens[index] ?? "").toUpperCase().split(",").filter(Boolean);
    if (parts.length === 0 || !parts.every((part) => part === "ALL" || isScope(part))) break;
    for (const part of parts) {
      if (part === "ALL") all = true;
      else if (isScope(part)) scopes.add(part);
    }
  }
  const chosen = all ? [] : [...scopes];
  if (mode === "off") return index < tokens.length ? { mode: "invalid" } : { mode: "off", scopes: chosen };
  let durationMs: number | undefined;
  const duration = /^(\d{1,4})(m|h)$/i.exec(tokens[index] ?? "");
  if (duration) {
    durationMs = Number(duration[1]) * (duration[2]?.toLowerCase() === "h" ? 3_600_000 : 60_000);
    if (durationMs < 60_000 || durationMs > MAX_DURATION_MS) return { mode: "invalid" };
    index += 1;
  }
  // The message keeps its own spacing: cut the command words off the original text.
  let message = rest;
  for (const token of tokens.slice(0, index)) message = message.slice(message.indexOf(token) + token.length);
  message = message.trim().slice(0, 500);
  return {
    mode: "on",
    scopes: chosen,
    ...(durationMs ? { durationMs } : {}),
    ...(message ? { message } : {}),
  };
}

function isScope(value: string): value is PauseScope {
  return (PAUSE_SCOPES as readonly string[]).includes(value);
}

/** The state after a command (pure: `now` and the admin's id come in). */
export function applyMaintenanceCommand(
  state: MaintenanceState,
  command: Extract<MaintenanceCommand, { mode: "on" | "off" }>,
  now: number,
  by: number | undefined,
): MaintenanceState {
  const stamp = { since: new Date(now).toISOString(), ...(by === undefined ? {} : { by }) };
  if (command.mode === "off") {
    if (command.scopes.length === 0) return { paused: false, ...stamp };
    const scopes = { ...state.scopes };
    for (const scope of command.scopes) delete scopes[scope];
    return { ...state, scopes };
  }
  const pause: PauseState = {
    ...stamp,
    ...(command.message ? { message: command.message } : {}),
    ...(command.durationMs ? { until: new Date(now + command.durationMs).toISOString() } : {}),
  };
  if (command.scopes.length === 0)
    return { ...pause, paused: true, ...(state.scopes ? { scopes: state.scopes } : {}) };
  const scopes = { ...state.scopes };
  for (const scope of command.scopes) scopes[scope] = pause;
  return { ...state, scopes };
}

/** "Nigeria, Buy bitcoin" or "everything", in the reader's language. */
export function scopeNames(t: TFunction, scopes: readonly ("all" | PauseScope)[]): string {
  if (scopes.length === 0 || scopes.includes("all")) return t("admin:maintenance.scopes.all");
  return scopes
    .map((scope) =>
      scope === "BUY" ? t("admin:maintenance.scopes.BUY") : t(`payout:country.names.${scope}`),
    )
    .join(", ");
}

/** When to try again: "in 45 minutes", "in 3 hours", or "a little later" when ops gave no end time. */
export function retryText(t: TFunction, retryInMs: number | undefined): string {
  if (retryInMs === undefined) return t("admin:maintenance.notice.retry_later");
  const minutes = Math.max(1, Math.ceil(retryInMs / 60_000));
  return minutes < 90
    ? t("admin:maintenance.notice.retry_in_minutes", { count: minutes })
    : t("admin:maintenance.notice.retry_in_hours", { count: Math.ceil(minutes / 60) });
}

/** The localized notice users get instead of a quote (HTML). */
export function maintenanceNotice(t: TFunction, pause: ActivePause): string {
  const title =
    pause.scope === "all"
      ? t("admin:maintenance.notice.all")
      : pause.scope === "BUY"
        ? t("admin:maintenance.notice.buy")
        : t("admin:maintenance.notice.country", { country: t(`payout:country.names.${pause.scope}`) });
  const body = `${title}\n${t("admin:maintenance.notice.safe")} ${retryText(t, pause.retryInMs)}`;
  return pause.message ? `${body}\n\n${escapeHtml(pause.message)}` : body;
}

/** Whether new quotes are paused for this corridor (or everywhere) right now. */
export async function quotesPaused(
  deps: Pick<BotDeps, "store">,
  scope?: PauseScope,
): Promise<({ paused: true } & ActivePause) | { paused: false }> {
  const pause = activePause(await deps.store.settings.maintenance(), scope, Date.now());
  return pause ? { paused: true, ...pause } : { paused: false };
}

/** Corridors paused on their own right now. */
export async function pausedCorridors(deps: Pick<BotDeps, "store">): Promise<PauseScope[]> {
  return pausedScopes(await deps.store.settings.maintenance(), Date.now());
}
