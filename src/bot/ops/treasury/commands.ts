import type { BotContext } from "#src/bot/context.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { type OpsComposer, replyHtml } from "#src/bot/ops/command-tools.js";
import { namesFor, renderApprovalCard } from "#src/bot/rules/approval-card.js";
import { APPROVAL_ACTIONS, approvalData } from "#src/bot/rules/approval-data.js";
import { isOpsAdmin } from "#src/bot/rules/ops-admins.js";
import { claimApproval, executeApproval, rejectWithdrawal } from "#src/bot/rules/treasury.js";
import type { ApprovalRecord } from "#src/store/index.js";

/**
 * /withdraw_ngn, /withdraw_btc (the flow collects and posts the request) and the Approve / Reject buttons on the
 * request card. The press is answered at once; the API call (if this press won the claim) follows, then the card
 * is edited to its outcome.
 */
export function registerTreasury(ops: OpsComposer): void {
  const start = (kind: "ngn" | "btc") => async (ctx: BotContext) => {
    const active = Object.keys(await ctx.conversation.active());
    if (active.length > 0) {
      const what = active.map((name) => ctx.t(`common:flows.${name}`, { defaultValue: name })).join(", ");
      return replyHtml(ctx, ctx.t("admin:flow.busy", { what }));
    }
    await ctx.conversation.enter(FLOWS.withdraw, { kind });
  };
  ops.command("withdraw_ngn", start("ngn"));
  ops.command("withdraw_btc", start("btc"));

  ops.callbackQuery(approvalData.filter(), async (ctx) => {
    const { action, id } = approvalData.unpack(ctx.callbackQuery.data);
    const deps = ctx.deps;
    const userId = ctx.from.id;
    const now = Date.now();
    if (action === APPROVAL_ACTIONS.reject) {
      const outcome = await rejectWithdrawal(deps, id, userId, now);
      await ctx.answerCallbackQuery({ text: ctx.t(`admin:treasury.toast.reject_${outcome}`) });
      await refreshCard(ctx, id);
      await syncRefund(ctx, id);
      return;
    }
    if (action !== APPROVAL_ACTIONS.approve) {
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
      return;
    }
    const outcome = await claimApproval(deps, id, userId, now, (user) =>
      isOpsAdmin(deps, ctx.api, user, { fresh: true }),
    );
    if (outcome === "not_ops") {
      // No longer an ops admin: the same answer anyone outside ops gets for this button.
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
      return;
    }
    if (outcome !== "claimed") {
      // "self" and "requester_not_ops" are the four-eyes rule; the rest say why nothing happens (done, expired…).
      await ctx.answerCallbackQuery({
        text: ctx.t(`admin:treasury.toast.${outcome}`),
        show_alert: outcome === "self" || outcome === "requester_not_ops",
      });
      if (outcome === "expired") {
        await refreshCard(ctx, id);
        await syncRefund(ctx, id);
      }
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.t("admin:treasury.toast.claimed") });
    await refreshCard(ctx, id);
    await executeApproval(deps, id);
    await refreshCard(ctx, id);
    await syncRefund(ctx, id);
  });
}

/** A request changed: the product that opened it (a refund) follows, through the process wiring's port. */
async function syncRefund(ctx: BotContext, id: string): Promise<void> {
  const record = await ctx.deps.store.approvals.get(id);
  if (record) await ctx.deps.ops?.approvalChanged?.(record);
}

async function refreshCard(ctx: BotContext, id: string): Promise<void> {
  const record = await ctx.deps.store.approvals.get(id);
  if (!record) return;
  const card = await renderCard(ctx, record);
  const messageId = record.messageId ?? ctx.callbackQuery?.message?.message_id;
  if (messageId === undefined) return;
  await ctx.api
    .editMessageText(record.chatId, messageId, card.text, {
      parse_mode: "HTML",
      ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
    })
    .catch((error: unknown) => {
      if (!String(error).includes("message is not modified")) {
        ctx.deps.logger.warn({ err: error, approvalId: id }, "approval card not updated");
      }
    });
}

async function renderCard(ctx: BotContext, record: ApprovalRecord) {
  const names = await namesFor(ctx.deps.store.users, [record.requestedBy, record.decidedBy]);
  return renderApprovalCard(record, ctx, names);
}
