import { InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { shortAddress } from "#src/bot/rules/bitcoin-address.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney, formatOpsTime } from "#src/money/index.js";
import type { PaymentLinkRecord } from "#src/store/index.js";
import { linkData } from "./callback-data.ts";
import { offerMiniApp } from "./dashboard/button.ts";
import { replyLinksChart } from "./links-chart.ts";

/** /links and /link <ref>: the merchant's payment links and the orders of one of them. */
const STATUS_EMOJI: Record<PaymentLinkRecord["status"], string> = { active: "🟢", paid: "💰", settled: "✅" };
const PAGE = 10;

export async function showLinks(ctx: BotContext, merchantId: number): Promise<void> {
  const { links, total } = await ctx.deps.store.paymentLinks.listForMerchant(merchantId, 0, PAGE);
  if (links.length === 0) {
    await ctx.reply(ctx.t("merchant:links.empty"), { parse_mode: "HTML" });
    return;
  }
  const lines = links.map((link, index) =>
    ctx.t("merchant:links.line", {
      n: index + 1,
      emoji: STATUS_EMOJI[link.status],
      name: escapeHtml(link.name),
      amount: escapeHtml(formatMoney(link.amount, "NGNKOBO", ctx.locale)),
      status: ctx.t(`merchant:status.${link.status}`),
      ref: escapeHtml(link.ref),
    }),
  );
  const keyboard = InlineKeyboard.from(
    links.map((link, index) => [
      InlineKeyboard.text(`${index + 1}. ${link.name.slice(0, 40)}`, linkData.pack({ ref: link.ref })),
    ]),
  );
  await offerMiniApp(ctx, keyboard);
  const more =
    total > links.length ? `\n\n${ctx.t("merchant:links.more", { count: total - links.length })}` : "";
  await ctx.reply(`${ctx.t("merchant:links.title", { count: total })}\n\n${lines.join("\n")}${more}`, {
    parse_mode: "HTML",
    reply_markup: keyboard,
    link_preview_options: { is_disabled: true },
  });
  await replyLinksChart(ctx, merchantId, Date.now());
}

/** A full reference, or the start of one (≥ 6 characters) among the merchant's own links. */
export async function findOwnLink(
  ctx: BotContext,
  merchantId: number,
  query: string,
): Promise<PaymentLinkRecord | undefined> {
  const wanted = query.trim().toLowerCase();
  if (wanted.length < 6) return undefined;
  const exact = await ctx.deps.store.paymentLinks.get(wanted);
  if (exact) return exact.merchantId === merchantId ? exact : undefined;
  const { links } = await ctx.deps.store.paymentLinks.listForMerchant(merchantId, 0, 200);
  const matches = links.filter((link) => link.ref.toLowerCase().startsWith(wanted));
  return matches.length === 1 ? matches[0] : undefined;
}

export async function showLinkDetails(ctx: BotContext, link: PaymentLinkRecord): Promise<void> {
  const deps = ctx.deps;
  let ordersText: string;
  let apiStatus = "—";
  try {
    const remote = await deps.api.getPaymentLinkOrders(link.ref);
    await deps.store.paymentLinks.linkOrders(
      link.ref,
      remote.orders.map((order) => order.orderId),
    );
    apiStatus = remote.status ?? "—";
    ordersText =
      remote.orders.length === 0
        ? ctx.t("merchant:link.no_orders")
        : remote.orders
            .slice(-10)
            .map((order) => {
              const line = ctx.t("merchant:link.order_line", {
                orderId: escapeHtml(order.orderId),
                status: escapeHtml(order.status),
                at: order.createdAt
                  ? escapeHtml(formatOpsTime(Date.parse(order.createdAt), ctx.locale))
                  : "—",
              });
              // A link taking Lightning has an order per method: mark the Lightning ones.
              return order.paymentMethod?.toUpperCase() === "LIGHTNING" ? `${line} ⚡` : line;
            })
            .join("\n");
  } catch (error) {
    ordersText = describeApiError(error, ctx.t).text;
  }
  const text = ctx.t("merchant:link.details", {
    name: escapeHtml(link.name),
    description: escapeHtml(link.description || "—"),
    amount: escapeHtml(formatMoney(link.amount, "NGNKOBO", ctx.locale)),
    speed: ctx.t(`merchant:speed.${link.speed}`),
    address: escapeHtml(shortAddress(link.address)),
    status: ctx.t(`merchant:status.${link.status}`),
    apiStatus: escapeHtml(apiStatus),
    ref: escapeHtml(link.ref),
    sats:
      link.receivedSats === undefined
        ? "—"
        : escapeHtml(formatMoney(link.receivedSats, "BTCSAT", ctx.locale)),
    txid: escapeHtml(link.txid ?? "—"),
    orders: ordersText,
  });
  const keyboard = /^https?:\/\//.test(link.url)
    ? { reply_markup: new InlineKeyboard().url(ctx.t("merchant:newlink.open_button"), link.url) }
    : {};
  await ctx.reply(text, { parse_mode: "HTML", link_preview_options: { is_disabled: true }, ...keyboard });
}
