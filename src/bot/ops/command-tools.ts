import type { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { escapeHtml } from "#src/i18n/index.js";
import type { UserRecord } from "#src/store/index.js";

/** Handlers of the admin group share this: a Composer behind the ops gate (see index.ts). */
export type OpsComposer = Composer<BotContext>;
export type CommandContext = BotContext & { match: string };

/** "<telegram id>" or "@username" → the user record (they must have talked to the bot). */
export async function findUser(ctx: BotContext, argument: string): Promise<UserRecord | undefined> {
  const wanted = argument.trim();
  if (/^\d{1,15}$/.test(wanted)) return ctx.deps.store.users.get(Number(wanted));
  if (/^@?[A-Za-z0-9_]{3,32}$/.test(wanted)) return ctx.deps.store.users.findByUsername(wanted);
  return undefined;
}

export function userLabel(user: Pick<UserRecord, "id" | "username" | "firstName">): string {
  const name = user.username ? `@${user.username}` : (user.firstName ?? "");
  return `${escapeHtml(name)} (<code>${user.id}</code>)`;
}

export async function replyHtml(
  ctx: BotContext,
  text: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await ctx.reply(text.slice(0, 4096), {
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...extra,
  });
}

/** A payout API failure in an ops reply: our calm sentence plus the API's own words when it gave some. */
export function apiFailure(ctx: BotContext, error: unknown): string {
  const { text } = describeApiError(error, ctx.t);
  return escapeHtml(text);
}
