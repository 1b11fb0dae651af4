import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import { methodOf } from "#src/corridors/index.js";
import { escapeHtml } from "#src/i18n/index.js";
import { COUNTRY_FLAGS, type Country, formatDateTime, zoneName } from "#src/money/index.js";
import { formatCancelTime, formatOrderMoney, renderStatusCard } from "#src/orders/index.js";
import { type OrderRecord, type Recipient, RecipientLimitError } from "#src/store/index.js";
import { HISTORY_OFFSET, historyData } from "./callback-data/history.ts";
import { statusData } from "./callback-data/status.ts";
import { userClock } from "./clock.ts";
import { enterPayoutFor, maskedLabel } from "./recipients.ts";
import { exportButtonData, statementComposer } from "./statement/export.ts";

const HISTORY_PAGE_SIZE = 5;

/**
 * The clock the user reads times in: their choice in /language, else their most recent order's corridor, else their
 * language's country. `newest` saves a read when the caller already holds the user's newest order.
 */
export async function clockOf(ctx: BotContext, newest?: OrderRecord): Promise<Country> {
  const userId = ctx.from!.id;
  const [user, recent] = await Promise.all([
    ctx.deps.store.users.get(userId),
    newest ? { orders: [newest] } : ctx.deps.store.orders.listForUser(userId, 0, 1),
  ]);
  return userClock({
    chosen: user?.clock,
    recentCorridor: recent.orders[0]?.corridor,
    language: ctx.language,
  });
}

/** One order of the list; every time in the user's clock, so the list reads in order (receipts keep the corridor's). */
function orderLine(ctx: BotContext, order: OrderRecord, n: number, clock: Country): string {
  const cancelled = order.stage === "cancelled" ? { time: formatCancelTime(order, ctx.locale, clock) } : {};
  let stage = ctx.t(`history:stage.${order.stage}`, cancelled);
  if (order.kind === "buy" && order.stage === "payout_sent" && order.confirmations !== undefined) {
    stage += ` (${order.confirmations}/3)`;
  }
  return ctx.t("history:line", {
    n,
    flag: `${COUNTRY_FLAGS[order.corridor]} ${ctx.t(`history:kind.${order.kind}`)}`,
    date: escapeHtml(formatDateTime(Date.parse(order.createdAt), ctx.locale, clock)),
    pay: formatOrderMoney(order.pay, ctx.locale),
    receive: formatOrderMoney(order.receive, ctx.locale),
    recipient: maskedLabel(order.recipientLabel),
    stage,
  });
}

const canSendAgain = (order: OrderRecord) =>
  order.kind === "payout" && (!!order.recipientId || !!order.beneficiary);

/** One page of the user's orders, newest first, with a details button per order and ◀ ▶ paging. */
async function renderHistoryPage(
  ctx: BotContext,
  requestedOffset: number,
): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const userId = ctx.from!.id;
  let offset = Math.max(0, Math.floor(requestedOffset));
  let page = await ctx.deps.store.orders.listForUser(userId, offset, HISTORY_PAGE_SIZE);
  if (page.orders.length === 0 && page.total > 0) {
    // The list shrank since the buttons were drawn: show the last page instead of an empty one.
    offset = Math.floor((page.total - 1) / HISTORY_PAGE_SIZE) * HISTORY_PAGE_SIZE;
    page = await ctx.deps.store.orders.listForUser(userId, offset, HISTORY_PAGE_SIZE);
  }
  if (page.orders.length === 0) return { text: ctx.t("history:empty"), keyboard: mainMenuKeyboard(ctx.t) };

  const clock = await clockOf(ctx, offset === 0 ? page.orders[0] : undefined);
  const lines = page.orders.map((order, index) => orderLine(ctx, order, offset + index + 1, clock));
  const title = ctx.t("history:title", {
    from: offset + 1,
    to: offset + page.orders.length,
    total: page.total,
  });
  const note = ctx.t("clock:history_note", { zone: escapeHtml(zoneName(clock)) });
  const keyboard = new InlineKeyboard();
  page.orders.forEach((order, index) => {
    const n = offset + index + 1;
    keyboard.text(
      ctx.t("history:button.view", { n }),
      historyData.pack({ action: "view", value: order.orderId }),
    );
    if (canSendAgain(order)) {
      keyboard.text(
        ctx.t("history:button.again", { n }),
        historyData.pack({ action: "again", value: order.orderId }),
      );
    }
    keyboard.row();
  });
  if (offset > 0) {
    const previous = Math.max(0, offset - HISTORY_PAGE_SIZE);
    keyboard.text(
      ctx.t("history:button.previous"),
      historyData.pack({ action: "page", value: String(previous) }),
    );
  }
  if (offset + page.orders.length < page.total) {
    const next = offset + HISTORY_PAGE_SIZE;
    keyboard.text(ctx.t("history:button.next"), historyData.pack({ action: "page", value: String(next) }));
  }
  if (keyboard.inline_keyboard.at(-1)?.length) keyboard.row();
  keyboard.text(ctx.t("history:export.button"), exportButtonData);
  return { text: [title, note, "", lines.join("\n\n")].join("\n"), keyboard };
}

async function ownOrder(ctx: BotContext, orderId: string): Promise<OrderRecord | undefined> {
  const order = await ctx.deps.store.orders.get(orderId);
  return order && order.userId === ctx.from?.id ? order : undefined;
}

/** The saved recipient of a payout order; a snapshotted beneficiary is saved first (and linked to the order). */
async function recipientOf(ctx: BotContext, order: OrderRecord): Promise<Recipient | undefined> {
  const { store } = ctx.deps;
  const saved = order.recipientId ? await store.recipients.get(order.userId, order.recipientId) : undefined;
  if (saved) return saved;
  if (!order.beneficiary) return undefined;
  const kind = methodOf(order.beneficiary);
  if (!kind) return undefined;
  const recipient = await store.recipients.save({
    userId: order.userId,
    corridor: kind.corridor,
    method: kind.method,
    label: order.recipientLabel,
    details: order.beneficiary,
  });
  await store.orders.annotate(order.orderId, { recipientId: recipient.id });
  return recipient;
}

/** /history and the menu's "History": edit in place when paging, a new message otherwise. */
function historyComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const show = async (ctx: BotContext) => {
    const { text, keyboard } = await renderHistoryPage(ctx, 0);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  };
  composer.chatType("private").command("history", show);
  composer.callbackQuery(menuData.filter({ action: "history" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await show(ctx);
  });

  composer.callbackQuery(historyData.filter({ action: "page", value: HISTORY_OFFSET }), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { value } = historyData.unpack(ctx.callbackQuery.data);
    const { text, keyboard } = await renderHistoryPage(ctx, Number(value));
    await ctx
      .editMessageText(text, { parse_mode: "HTML", reply_markup: keyboard })
      .catch((error: unknown) => {
        if (!/message is not modified/i.test(String(error))) throw error;
      });
  });

  composer.use(statementComposer(clockOf));

  composer.callbackQuery(historyData.filter({ action: "view" }), async (ctx) => {
    const { value: orderId } = historyData.unpack(ctx.callbackQuery.data);
    const order = await ownOrder(ctx, orderId);
    if (!order) {
      await ctx.answerCallbackQuery({ text: ctx.t("history:toast.not_found") });
      return;
    }
    await ctx.answerCallbackQuery();
    const card = renderStatusCard(order, ctx.t, ctx.locale);
    const keyboard = InlineKeyboard.from(card.keyboard?.inline_keyboard ?? []);
    keyboard
      .row()
      .text(
        ctx.t("history:status.refresh_button"),
        statusData.pack({ action: "refresh", value: order.orderId }),
      );
    await ctx.reply(card.text, {
      parse_mode: "HTML",
      reply_markup: keyboard,
      link_preview_options: { is_disabled: true },
    });
  });

  composer.callbackQuery(historyData.filter({ action: "again" }), async (ctx) => {
    const { value: orderId } = historyData.unpack(ctx.callbackQuery.data);
    const order = await ownOrder(ctx, orderId);
    let recipient: Recipient | undefined;
    try {
      recipient = order?.kind === "payout" ? await recipientOf(ctx, order) : undefined;
    } catch (error) {
      if (!(error instanceof RecipientLimitError)) throw error;
      await ctx.answerCallbackQuery({
        text: ctx.t("recipients:toast.limit", { limit: error.limit }),
        show_alert: true,
      });
      return;
    }
    if (!recipient) {
      await ctx.answerCallbackQuery({
        text: ctx.t(order ? "history:toast.no_recipient" : "history:toast.not_found"),
      });
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.t("history:toast.opening") });
    await enterPayoutFor(ctx, recipient);
  });

  return composer;
}

export function historyFeature(): Feature {
  return { name: "history", composer: historyComposer() };
}
