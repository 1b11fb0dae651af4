import { setMerchantMenuButton } from "#src/bot/rules/miniapp-menu.js";
import { quoteInput } from "#src/i18n/index.js";
import { languageResolver } from "#src/i18n/language-of.js";
import type { CommandContext, OpsComposer } from "./command-tools.ts";
import { findUser, replyHtml, userLabel } from "./command-tools.ts";

/** /block, /unblock, /merchant approve|revoke, /merchants. Every change is audited. */
export function registerUserCommands(ops: OpsComposer): void {
  ops.command("block", (ctx) => setBlocked(ctx, true));
  ops.command("unblock", (ctx) => setBlocked(ctx, false));
  ops.command("merchant", manageMerchant);
  ops.command("merchants", listMerchants);
}

async function setBlocked(ctx: CommandContext, blocked: boolean): Promise<void> {
  const argument = ctx.match.trim();
  const usage = blocked ? "admin:block.usage" : "admin:block.usage_unblock";
  if (!argument) return replyHtml(ctx, ctx.t(usage));
  const user = await findUser(ctx, argument);
  if (!user) return replyHtml(ctx, ctx.t("admin:user.not_found", { user: quoteInput(argument) }));
  await ctx.deps.store.users.update(user.id, { blocked });
  await ctx.deps.store.audit.record({
    actor: ctx.from?.id ?? "system",
    action: blocked ? "user.blocked" : "user.unblocked",
    details: { userId: user.id },
  });
  await replyHtml(
    ctx,
    ctx.t(blocked ? "admin:block.blocked" : "admin:block.unblocked", { user: userLabel(user) }),
  );
}

async function manageMerchant(ctx: CommandContext): Promise<void> {
  const [action, argument] = ctx.match.trim().split(/\s+/, 2);
  if ((action !== "approve" && action !== "revoke") || !argument)
    return replyHtml(ctx, ctx.t("admin:merchant.usage"));
  const user = await findUser(ctx, argument);
  if (!user) return replyHtml(ctx, ctx.t("admin:merchant.unknown_user", { user: quoteInput(argument) }));
  const merchants = ctx.deps.store.merchants;
  const updated = action === "approve" ? await merchants.approve(user.id) : await merchants.revoke(user.id);
  if (!updated) return replyHtml(ctx, ctx.t("admin:merchant.unknown_user", { user: quoteInput(argument) }));
  await ctx.deps.store.audit.record({
    actor: ctx.from?.id ?? "system",
    action: action === "approve" ? "merchant.approved" : "merchant.revoked",
    details: { userId: user.id },
  });
  await merchantMenuButton(ctx, updated.id, action === "approve");
  await replyHtml(ctx, ctx.t(`admin:merchant.${action}d`, { user: userLabel(updated) }));
}

/** An approved merchant's chat menu opens the Mini App (in their own language); a revoked one's is the default. */
async function merchantMenuButton(ctx: CommandContext, userId: number, approved: boolean): Promise<void> {
  const { deps } = ctx;
  const language = await languageResolver(deps.store.users, deps.accountLanguage)(userId);
  const text = approved ? deps.translator.t(language)("merchant:miniapp.open_button") : undefined;
  await setMerchantMenuButton({ ...deps, telegram: ctx.api }, userId, text);
}

async function listMerchants(ctx: CommandContext): Promise<void> {
  const merchants = await ctx.deps.store.merchants.list();
  if (merchants.length === 0) return replyHtml(ctx, ctx.t("admin:merchant.none"));
  const lines = await Promise.all(
    merchants.map(async (merchant) => {
      const { total } = await ctx.deps.store.paymentLinks.listForMerchant(merchant.id, 0, 0);
      return ctx.t("admin:merchant.line", { user: userLabel(merchant), links: total });
    }),
  );
  await replyHtml(ctx, [ctx.t("admin:merchant.title", { count: merchants.length }), ...lines].join("\n"));
}
