import type { Api, Context } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import { keys } from "#src/store/index.js";

/**
 * Who may do what. Ops = members of the admin group (creator, administrator or member) or the user ids listed in
 * the config — and ops commands only ever work inside the admin group. Membership comes from getChatMember and is
 * cached briefly in Redis, so a burst of ops commands costs one Telegram call and a removed member loses access
 * within a minute.
 */
const OPS_MEMBER_CACHE_SECONDS = 60;
/** A failed lookup is cached shorter, so a Telegram hiccup does not lock ops out for long. */
const FAILED_LOOKUP_CACHE_SECONDS = 10;
const OPS_STATUSES = new Set(["creator", "administrator", "member"]);

type RolesDeps = Pick<BotDeps, "config" | "store" | "logger">;

export function isAdminChat(deps: Pick<BotDeps, "config">, chatId: number | undefined): boolean {
  const adminChatId = deps.config.admin.chatId;
  return adminChatId !== undefined && chatId === adminChatId;
}

/** Whether the user counts as ops (regardless of where they write). */
export async function isOpsUser(deps: RolesDeps, api: Api, userId: number): Promise<boolean> {
  if (deps.config.admin.userIds.includes(userId)) return true;
  const chatId = deps.config.admin.chatId;
  if (chatId === undefined) return false;
  const key = keys.opsMember(chatId, userId);
  const cached = await deps.store.caches.read(key);
  if (cached !== undefined) return cached === "1";
  try {
    const member = await api.getChatMember(chatId, userId);
    const ops = OPS_STATUSES.has(member.status);
    await deps.store.caches.write(key, ops ? "1" : "0", OPS_MEMBER_CACHE_SECONDS);
    return ops;
  } catch (error) {
    deps.logger.warn({ err: error, userId }, "admin group membership lookup failed");
    await deps.store.caches.write(key, "0", FAILED_LOOKUP_CACHE_SECONDS);
    return false;
  }
}

/** The gate of every ops handler: inside the admin group, from an ops user. */
export async function isOpsContext(ctx: Context & { deps: BotDeps }): Promise<boolean> {
  if (!ctx.from || ctx.from.is_bot || !isAdminChat(ctx.deps, ctx.chat?.id)) return false;
  return isOpsUser(ctx.deps, ctx.api, ctx.from.id);
}

/** Forget a cached membership (tests, or after ops changed the group). */
export async function forgetOpsMembership(deps: RolesDeps, userId: number): Promise<void> {
  const chatId = deps.config.admin.chatId;
  if (chatId !== undefined) await deps.store.caches.forget(keys.opsMember(chatId, userId));
}
