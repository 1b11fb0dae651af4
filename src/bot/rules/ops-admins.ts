import type { Api } from "grammy";
import type { BotDeps } from "#src/bot/context.js";

/**
 * Who is ops: a user listed in ADMIN_USER_IDS who is, right now, an administrator (or the creator) of the ops group
 * (ADMIN_CHAT_ID), as getChatMember says. Either alone is not enough: a listed account that is only a member (or
 * was demoted) is not ops, and neither is a group admin nobody listed. Four eyes then means two such admins, not two
 * accounts that happen to sit in the group.
 *
 * The answer is cached in Redis briefly, so a burst of ops commands costs one Telegram call; the `chat_member`
 * update of a role change forgets it at once (ops/roles.ts), and the short TTL bounds how long a missed update can
 * keep a demoted admin in. Money decisions ask with `fresh` (Telegram, not the cache).
 */
const OPS_ADMIN_CACHE_SECONDS = 10;
/** A failed lookup is cached shorter still, so a Telegram hiccup does not lock ops out for long. */
const FAILED_LOOKUP_CACHE_SECONDS = 3;
const ADMIN_STATUSES = new Set(["creator", "administrator"]);

type OpsAdminDeps = Pick<BotDeps, "config" | "store" | "logger">;

export async function isOpsAdmin(
  deps: OpsAdminDeps,
  api: Api,
  userId: number,
  options: { fresh?: boolean } = {},
): Promise<boolean> {
  const chatId = deps.config.admin.chatId;
  // Unlisted users and deployments without an ops group cost no lookup at all.
  if (chatId === undefined || !deps.config.admin.userIds.includes(userId)) return false;
  const entry = { kind: "opsAdmin", chatId, userId } as const;
  if (!options.fresh) {
    const cached = await deps.store.caches.read(entry);
    if (cached !== undefined) return cached === "1";
  }
  try {
    const member = await api.getChatMember(chatId, userId);
    const admin = ADMIN_STATUSES.has(member.status);
    await deps.store.caches.write(entry, admin ? "1" : "0", OPS_ADMIN_CACHE_SECONDS);
    return admin;
  } catch (error) {
    deps.logger.warn({ err: error, userId }, "ops group role lookup failed");
    await deps.store.caches.write(entry, "0", FAILED_LOOKUP_CACHE_SECONDS);
    return false;
  }
}

/** Forget a cached answer: the user's role in the ops group changed. */
export async function forgetOpsAdmin(deps: Pick<BotDeps, "config" | "store">, userId: number): Promise<void> {
  const chatId = deps.config.admin.chatId;
  if (chatId !== undefined) await deps.store.caches.forget({ kind: "opsAdmin", chatId, userId });
}
