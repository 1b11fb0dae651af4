import { Composer, InlineKeyboard } from "grammy";
import { isPayoutApiError } from "#src/api/index.js";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { quoteInput } from "#src/i18n/index.js";
import { renderStatusCard, transitionFromApiState, wouldChange } from "#src/orders/index.js";
import { createOrderMessages } from "#src/orders/messages.js";
import type { OrderRecord } from "#src/store/index.js";
import { statusData } from "./callback-data/status.ts";

const ORDER_ID = /^[A-Za-z0-9_-]{1,48}$/;

interface FreshOrder {
  order: OrderRecord;
  changed: boolean;
  /** The API could not be asked: the order is shown as last stored. */
  stale: boolean;
}

/**
 * Ask the payout API what really happened to an order (GET /order + GET /transaction) and apply any transition it
 * proves through the store's monotonic transition(): a stale or reordered answer can never move it back.
 */
async function refreshOrder(
  deps: Pick<BotDeps, "api" | "store" | "logger" | "now">,
  order: OrderRecord,
): Promise<FreshOrder> {
  try {
    const [apiOrder, transactions] = await Promise.all([
      deps.api.getOrder(order.orderId).catch((error: unknown) => {
        if (isPayoutApiError(error) && error.kind === "not_found") return undefined;
        throw error;
      }),
      deps.api.getTransactions({ orderId: order.orderId }),
    ]);
    const transition = transitionFromApiState({ order, apiOrder, transactions, now: deps.now() });
    if (!transition || !wouldChange(order, transition)) return { order, changed: false, stale: false };
    const result = await deps.store.orders.transition(order.orderId, transition);
    return { order: result?.order ?? order, changed: result?.changed ?? false, stale: false };
  } catch (error) {
    deps.logger.warn({ err: error, orderId: order.orderId }, "could not refresh order for /status");
    return { order, changed: false, stale: true };
  }
}

function statusView(ctx: BotContext, fresh: FreshOrder): { text: string; keyboard: InlineKeyboard } {
  const card = renderStatusCard(fresh.order, ctx.t, ctx.locale);
  const keyboard = InlineKeyboard.from(card.keyboard?.inline_keyboard ?? []);
  keyboard
    .row()
    .text(
      ctx.t("history:status.refresh_button"),
      statusData.pack({ action: "refresh", value: fresh.order.orderId }),
    );
  const text = fresh.stale ? `${card.text}\n\n${ctx.t("history:status.stale")}` : card.text;
  return { text, keyboard };
}

/** The order's own status card follows too, when /status was first to learn of a change. */
async function updateOriginalCard(ctx: BotContext, fresh: FreshOrder): Promise<void> {
  const { order } = fresh;
  if (!fresh.changed || order.statusMessageId === undefined) return;
  const { store, now, logger } = ctx.deps;
  await createOrderMessages({ telegram: ctx.api, store, now, logger })
    .refreshStatus(order, { t: ctx.t, locale: ctx.locale })
    .catch((error: unknown) =>
      ctx.deps.logger.debug({ err: error, orderId: order.orderId }, "status card not edited"),
    );
}

async function findOwnOrder(ctx: BotContext, argument: string): Promise<OrderRecord | undefined> {
  const orderId = argument.replace(/^#/, "");
  if (!ORDER_ID.test(orderId)) return undefined;
  const order = await ctx.deps.store.orders.get(orderId);
  return order && order.userId === ctx.from?.id ? order : undefined;
}

/** /status [orderId]: the latest order, or the given one if it is the user's, fresh from the payout API. */
function statusComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.chatType("private").command("status", async (ctx) => {
    const argument = ctx.match.trim();
    let order: OrderRecord | undefined;
    if (argument) {
      order = await findOwnOrder(ctx, argument);
      if (!order) {
        await ctx.reply(ctx.t("history:status.not_found", { orderId: quoteInput(argument) }), {
          parse_mode: "HTML",
          reply_markup: mainMenuKeyboard(ctx.t),
        });
        return;
      }
    } else {
      order = (await ctx.deps.store.orders.listForUser(ctx.from.id, 0, 1)).orders[0];
      if (!order) {
        await ctx.reply(ctx.t("history:status.none"), { reply_markup: mainMenuKeyboard(ctx.t) });
        return;
      }
    }
    await ctx.replyWithChatAction("typing").catch(() => undefined);
    const fresh = await refreshOrder(ctx.deps, order);
    await updateOriginalCard(ctx, fresh);
    const { text, keyboard } = statusView(ctx, fresh);
    await ctx.reply(text, {
      parse_mode: "HTML",
      reply_markup: keyboard,
      link_preview_options: { is_disabled: true },
    });
  });

  composer.callbackQuery(statusData.filter({ action: "refresh" }), async (ctx) => {
    const { value } = statusData.unpack(ctx.callbackQuery.data) as { value: string };
    const order = await findOwnOrder(ctx, value);
    if (!order) {
      await ctx.answerCallbackQuery({ text: ctx.t("history:toast.not_found") });
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.t("history:status.checking") });
    const fresh = await refreshOrder(ctx.deps, order);
    await updateOriginalCard(ctx, fresh);
    const { text, keyboard } = statusView(ctx, fresh);
    await ctx
      .editMessageText(text, { parse_mode: "HTML", reply_markup: keyboard })
      .catch((error: unknown) => {
        if (!/message is not modified/i.test(String(error))) throw error;
      });
  });

  return composer;
}

export function statusFeature(): Feature {
  return { name: "status", composer: statusComposer() };
}
