import { Composer, type Context } from "grammy";
import type { Update } from "grammy/types";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import { forgetOpsAdmin, isOpsAdmin } from "#src/bot/rules/ops-admins.js";

/**
 * The ops gate: ops commands, buttons and flows work only inside the ops group, and only for ops admins (listed in
 * ADMIN_USER_IDS and an administrator of the group right now: rules/ops-admins.ts). Everyone else in the group —
 * plain or restricted members, admins nobody listed — is treated as if the commands did not exist.
 */
export function isAdminChat(deps: Pick<BotDeps, "config">, chatId: number | undefined): boolean {
  const adminChatId = deps.config.admin.chatId;
  return adminChatId !== undefined && chatId === adminChatId;
}

/**
 * One answer per update: the flows' gate and the commands' gate ask for the same update, and must agree (a flow
 * let through must find its command handlers let through too).
 */
const answers = new WeakMap<Update, Promise<boolean>>();

/** The gate of every ops handler and flow: inside the ops group, from an ops admin. */
export function isOpsContext(ctx: Context & { deps: BotDeps }): Promise<boolean> {
  if (!ctx.from || ctx.from.is_bot || !isAdminChat(ctx.deps, ctx.chat?.id)) return Promise.resolve(false);
  const known = answers.get(ctx.update);
  if (known) return known;
  const answer = isOpsAdmin(ctx.deps, ctx.api, ctx.from.id);
  answers.set(ctx.update, answer);
  return answer;
}

/**
 * `chat_member` updates of the ops group (the bot must be an administrator there to get them): a promotion,
 * demotion, restriction or removal forgets the user's cached role, so the change applies to their next update.
 */
export function opsRoleChanges(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.on("chat_member", async (ctx) => {
    if (!isAdminChat(ctx.deps, ctx.chat.id)) return;
    const { new_chat_member: now, old_chat_member: before } = ctx.chatMember;
    await forgetOpsAdmin(ctx.deps, now.user.id);
    await ctx.deps.store.audit.record({
      actor: ctx.from.id,
      action: "ops.role_changed",
      details: { userId: now.user.id, from: before.status, to: now.status },
    });
  });
  return composer;
}
