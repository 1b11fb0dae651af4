import { InlineKeyboard } from "grammy";
import type { TransactionDetail, TransactionQuery } from "#src/api/index.js";
import type { BotContext } from "#src/bot/context.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";
import { maskDigits } from "#src/log/mask.js";
import { formatOrderMoney } from "#src/orders/index.js";
import { formatWalletMoney, readDeadLetterRef } from "./alerts/render.ts";
import { ALERT_ACTIONS, alertData } from "./callback-data.ts";
import {
  apiFailure,
  type CommandContext,
  findUser,
  type OpsComposer,
  replyHtml,
  userLabel,
} from "./command-tools.ts";
import { redeliverStatus } from "./redeliver.ts";

/** /order, /tx, /user and the buttons on alerts (show order, re-check it, re-deliver its card, retry a dead letter). */
export function registerLookupCommands(ops: OpsComposer): void {
  ops.command("order", async (ctx) => {
    const orderId = ctx.match.trim();
    if (!orderId) return replyHtml(ctx, ctx.t("admin:order.usage"));
    await showOrder(ctx, orderId);
  });
  ops.command("tx", showTransactions);
  ops.command("user", showUser);

  ops.callbackQuery(alertData.filter(), async (ctx) => {
    const { action, ref } = alertData.unpack(ctx.callbackQuery.data);
    if (action === ALERT_ACTIONS.showOrder) {
      await ctx.answerCallbackQuery();
      await showOrder(ctx, ref);
    } else if (action === ALERT_ACTIONS.recheck) {
      await recheck(ctx, ref);
    } else if (action === ALERT_ACTIONS.redeliver) {
      await redeliverStatus(ctx, ref);
    } else if (action === ALERT_ACTIONS.retry) {
      await retryDeadLetter(ctx, ref);
    } else {
      await ctx.answerCallbackQuery({ text: ctx.t("common:stale_button") });
    }
  });
}

async function showOrder(ctx: BotContext, orderId: string): Promise<void> {
  const deps = ctx.deps;
  const order = await deps.store.orders.get(orderId);
  const remote = await deps.api.getOrder(orderId).then(
    (found) => ({ ok: true as const, found }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!order && !remote.ok)
    return replyHtml(ctx, ctx.t("admin:order.not_found", { orderId: quoteInput(orderId) }));
  const lines: string[] = [ctx.t("admin:order.title", { orderId: quoteInput(orderId) })];
  if (order) {
    lines.push(
      ctx.t("admin:order.local", {
        kind: escapeHtml(order.kind),
        corridor: escapeHtml(order.corridor),
        stage: escapeHtml(order.stage),
        userId: order.userId,
        pay: formatOrderMoney(order.pay, ctx.locale),
        receive: formatOrderMoney(order.receive, ctx.locale),
        fee: formatOrderMoney(order.fee, ctx.locale),
        recipient: escapeHtml(order.recipientLabel),
        created: escapeHtml(order.createdAt),
        updated: escapeHtml(order.updatedAt),
      }),
    );
    for (const field of ["payoutReference", "txid", "failureReason"] as const) {
      const value = order[field];
      if (value) lines.push(`${ctx.t(`admin:order.${field}`)}: <code>${escapeHtml(value)}</code>`);
    }
  } else {
    lines.push(ctx.t("admin:order.not_ours"));
  }
  lines.push(
    remote.ok
      ? ctx.t("admin:order.remote", {
          status: escapeHtml(remote.found.status),
          amount: escapeHtml(remote.found.displayAmount ?? "—"),
          method: escapeHtml(remote.found.paymentCollectionMethod ?? "—"),
        })
      : apiFailure(ctx, remote.error),
  );
  // The id was typed by an operator: only an id that fits the button's data gets the button.
  const recheckData = alertData.tryPack({ action: ALERT_ACTIONS.recheck, ref: orderId });
  const keyboard = recheckData
    ? new InlineKeyboard().text(ctx.t("admin:alerts.recheck"), recheckData)
    : undefined;
  await replyHtml(ctx, lines.join("\n"), order && keyboard ? { reply_markup: keyboard } : {});
}

async function recheck(ctx: BotContext, orderId: string): Promise<void> {
  const ports = ctx.deps.ops ?? {};
  if (!ports.recheckOrder) {
    await ctx.answerCallbackQuery({ text: ctx.t("admin:health.not_wired"), show_alert: true });
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.t("admin:order.rechecking") });
  try {
    const outcome = await ports.recheckOrder(orderId);
    await replyHtml(
      ctx,
      ctx.t("admin:order.rechecked", {
        orderId: escapeHtml(orderId),
        outcome: escapeHtml(JSON.stringify(outcome)),
      }),
    );
  } catch (error) {
    await replyHtml(ctx, apiFailure(ctx, error));
  }
}

async function retryDeadLetter(ctx: BotContext, ref: string): Promise<void> {
  const deps = ctx.deps;
  const ports = deps.ops ?? {};
  const target = await readDeadLetterRef(deps.store, ref);
  if (!ports.deadLetters || !target) {
    await ctx.answerCallbackQuery({ text: ctx.t("admin:alerts.retry_unavailable"), show_alert: true });
    return;
  }
  const letters = await ports.deadLetters.list(200);
  const letter = letters.find((entry) => entry.queue === target.queue && entry.jobId === target.jobId);
  const replayed = letter ? await ports.deadLetters.replay(letter.id) : false;
  await deps.store.audit.record({
    actor: ctx.from?.id ?? "system",
    action: "ops.dead_letter_replay",
    details: { queue: target.queue, jobId: target.jobId, replayed },
  });
  await ctx.answerCallbackQuery({
    text: replayed ? ctx.t("admin:alerts.retried") : ctx.t("admin:alerts.retry_gone"),
    show_alert: !replayed,
  });
  if (replayed) await ctx.editMessageReplyMarkup().catch(() => undefined);
}

/** An order id (digits-digits), a payment hash (hex) or a transaction id (UUID). */
function transactionQuery(argument: string): TransactionQuery {
  if (/^\d+-\d+$/.test(argument)) return { orderId: argument };
  if (/^[0-9a-f]{24}$|^[0-9a-f]{64}$/i.test(argument)) return { hash: argument };
  return { id: argument };
}

function transactionLine(ctx: BotContext, tx: TransactionDetail): string {
  const account = tx.metadata?.bankAccountNumber;
  return ctx.t("admin:tx.line", {
    id: escapeHtml(tx.id),
    type: escapeHtml(tx.type ?? "—"),
    status: escapeHtml(tx.status),
    amount: escapeHtml(formatWalletMoney(tx.amount, tx.currency.toUpperCase(), ctx.locale)),
    fees:
      tx.fees === undefined
        ? "—"
        : escapeHtml(formatWalletMoney(tx.fees, tx.currency.toUpperCase(), ctx.locale)),
    orderId: escapeHtml(tx.metadata?.order?.id ?? tx.metadata?.orderId ?? "—"),
    account: escapeHtml(account ? maskDigits(String(account)) : "—"),
    created: escapeHtml(tx.createdAt ?? "—"),
  });
}

async function showTransactions(ctx: CommandContext): Promise<void> {
  const argument = ctx.match.trim();
  if (!argument) return replyHtml(ctx, ctx.t("admin:tx.usage"));
  try {
    const transactions = await ctx.deps.api.getTransactions(transactionQuery(argument));
    if (transactions.length === 0)
      return replyHtml(ctx, ctx.t("admin:tx.none", { query: quoteInput(argument) }));
    await replyHtml(
      ctx,
      transactions
        .slice(0, 10)
        .map((tx) => transactionLine(ctx, tx))
        .join("\n\n"),
    );
  } catch (error) {
    await replyHtml(ctx, apiFailure(ctx, error));
  }
}

async function showUser(ctx: CommandContext): Promise<void> {
  const argument = ctx.match.trim();
  if (!argument) return replyHtml(ctx, ctx.t("admin:user.usage"));
  const user = await findUser(ctx, argument);
  if (!user) return replyHtml(ctx, ctx.t("admin:user.not_found", { user: quoteInput(argument) }));
  const { orders, total } = await ctx.deps.store.orders.listForUser(user.id, 0, 5);
  const flags = [
    user.blocked ? ctx.t("admin:user.flag_blocked") : "",
    user.unreachable ? ctx.t("admin:user.flag_unreachable") : "",
    user.merchant ? ctx.t("admin:user.flag_merchant") : "",
  ].filter(Boolean);
  const lines = orders.map((order) =>
    ctx.t("admin:user.order_line", {
      orderId: escapeHtml(order.orderId),
      corridor: escapeHtml(order.corridor),
      kind: escapeHtml(order.kind),
      stage: escapeHtml(order.stage),
      pay: formatOrderMoney(order.pay, ctx.locale),
      created: escapeHtml(order.createdAt.slice(0, 16).replace("T", " ")),
    }),
  );
  const text = ctx.t("admin:user.text", {
    user: userLabel(user),
    flags: flags.join(" ") || "—",
    language: escapeHtml(user.language ?? user.telegramLanguage ?? "—"),
    seen: escapeHtml(user.lastSeenAt.slice(0, 16).replace("T", " ")),
    total,
    orders: lines.join("\n") || ctx.t("admin:user.no_orders"),
  });
  await replyHtml(ctx, text);
}
