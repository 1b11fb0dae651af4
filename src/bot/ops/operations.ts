import type { BotContext } from "#src/bot/context.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { quoteInput } from "#src/i18n/index.js";
import { claimBroadcast, deliverBroadcast, readDraft, takeDraft } from "./broadcast/broadcast.ts";
import { broadcastData } from "./callback-data.ts";
import { apiFailure, type CommandContext, type OpsComposer, replyHtml } from "./command-tools.ts";
import { handleMaintenanceCommand } from "./maintenance.ts";

/** /maintenance, /broadcast, /simulate. */
export function registerOperations(ops: OpsComposer): void {
  ops.command("maintenance", handleMaintenanceCommand);
  ops.command("broadcast", startBroadcast);
  ops.callbackQuery(broadcastData.filter(), broadcastButton);
  ops.command("simulate", simulate);
}

async function startBroadcast(ctx: BotContext): Promise<void> {
  if (await ctx.deps.store.broadcasts.running()) return replyHtml(ctx, ctx.t("admin:broadcast.busy"));
  const active = Object.keys(await ctx.conversation.active());
  if (active.length > 0) {
    const what = active.map((name) => ctx.t(`common:flows.${name}`, { defaultValue: name })).join(", ");
    return replyHtml(ctx, ctx.t("admin:flow.busy", { what }));
  }
  await ctx.conversation.enter(FLOWS.broadcast);
}

/**
 * The Send / Edit / Drop card of a previewed broadcast. Only its author may press; Send takes the draft out of
 * Redis atomically (a double press sends once), takes the one-at-a-time lock and delivers in the background with
 * the bot's own Api (throttled, auto-retried), then posts the count to the group.
 */
async function broadcastButton(ctx: BotContext): Promise<void> {
  const { action, id } = broadcastData.unpack(ctx.callbackQuery!.data!);
  const deps = ctx.deps;
  const userId = ctx.from!.id;
  const draft = await readDraft(deps.store, id);
  if (!draft) {
    await ctx.answerCallbackQuery({ text: ctx.t("admin:broadcast.gone") });
    await ctx.editMessageReplyMarkup().catch(() => undefined);
    return;
  }
  if (draft.owner !== userId) {
    await ctx.answerCallbackQuery({ text: ctx.t("admin:flow.not_yours") });
    return;
  }
  if (action === "edit" || action === "drop") {
    await deps.store.broadcasts.dropDraft(id);
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup().catch(() => undefined);
    if (action === "edit") await ctx.conversation.enter(FLOWS.broadcast);
    else await replyHtml(ctx, ctx.t("admin:broadcast.dropped"));
    return;
  }
  const lock = await claimBroadcast(deps.store);
  if (!lock) {
    await ctx.answerCallbackQuery({ text: ctx.t("admin:broadcast.busy"), show_alert: true });
    return;
  }
  const taken = await takeDraft(deps.store, id);
  if (!taken) {
    await deps.store.broadcasts.releaseLock(lock);
    await ctx.answerCallbackQuery({ text: ctx.t("admin:broadcast.gone") });
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.t("admin:broadcast.sending_toast") });
  await ctx.editMessageReplyMarkup().catch(() => undefined);
  const audience = await deps.store.users.count();
  await deps.store.audit.record({
    actor: userId,
    action: "broadcast.started",
    details: { id: lock, length: taken.text.length },
  });
  await replyHtml(ctx, ctx.t("admin:broadcast.started", { count: audience }));
  const api = ctx.api;
  const t = ctx.t;
  void deliverBroadcast(deps, api, { id: lock, text: taken.text, by: userId })
    .then((counts) =>
      api.sendMessage(taken.chatId, t("admin:broadcast.finished", { ...counts }), { parse_mode: "HTML" }),
    )
    .catch((error: unknown) => deps.logger.error({ err: error, broadcastId: lock }, "broadcast failed"));
}

/**
 * Sandbox and staging only: pay an order as if the customer did (NGN bank transfer of the quote's exact total,
 * or the Lightning invoice). The order is read from the API first to know how it is paid.
 */
async function simulate(ctx: CommandContext): Promise<void> {
  const deps = ctx.deps;
  const env = deps.config.payout.env;
  if (env !== "sandbox" && env !== "staging") return replyHtml(ctx, ctx.t("admin:simulate.production"));
  const orderId = ctx.match.trim();
  if (!orderId) return replyHtml(ctx, ctx.t("admin:simulate.usage"));
  try {
    const order = await deps.api.getOrder(orderId);
    const quote = order.quotes[0];
    const method = (order.paymentCollectionMethod ?? quote?.paymentMethod ?? "").toUpperCase();
    const bankTransfer = method === "BANKTRANSFER" || quote?.sourceCurrency === "NGNKOBO";
    const amount = quote?.totalAmountInSourceCurrency ?? quote?.amountInSourceCurrency;
    if (bankTransfer && amount === undefined) return replyHtml(ctx, ctx.t("admin:simulate.no_amount"));
    await deps.api.simulatePayIn(
      bankTransfer ? { orderId, currency: "NGN", amount } : { orderId, currency: "BTC" },
    );
    await deps.store.audit.record({
      actor: ctx.from?.id ?? "system",
      action: "ops.simulate",
      details: { orderId, currency: bankTransfer ? "NGN" : "BTC", amount },
    });
    await replyHtml(ctx, ctx.t("admin:simulate.done", { orderId: quoteInput(orderId) }));
  } catch (error) {
    await replyHtml(ctx, apiFailure(ctx, error));
  }
}
