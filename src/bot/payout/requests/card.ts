import { InlineKeyboard } from "grammy";
import type { InlineQueryResultArticle } from "grammy/types";
import { qrPng } from "#src/bot/flow/qr-png.js";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { formatDateTime } from "#src/money/index.js";
import { formatOrderMoney } from "#src/orders/index.js";
import type { MoneyRequest } from "#src/store/index.js";
import { requestData } from "./callback-data.ts";

/** The payer's way in: the bot's deep link with the token only (nothing else about the request is in it). */
function requestLink(botUsername: string, token: string): string {
  return `https://t.me/${botUsername}?start=req_${token}`;
}

/** The inline query that shares one request ("@bot request <token>"), filled in by the card's Share button. */
function shareQuery(token: string): string {
  return `request ${token}`;
}

/** What every rendering of a request shows, escaped for Telegram HTML. */
export function requestFacts(request: MoneyRequest, locale: string) {
  return {
    name: escapeHtml(request.name),
    label: escapeHtml(request.label),
    amount: formatOrderMoney(request.amount, locale),
    until: escapeHtml(formatDateTime(Date.parse(request.expiresAt), locale, request.corridor)),
  };
}

/** The requester's card: a QR photo of the link with the request and the link in its caption. */
export function requestCard(
  request: MoneyRequest,
  t: TFunction,
  locale: string,
  botUsername: string,
): { png: Buffer; caption: string; keyboard: InlineKeyboard } {
  const link = requestLink(botUsername, request.token);
  const png = qrPng(link, { errorCorrectionLevel: "M", margin: 4, targetSize: 512, minScale: 4 }).png;
  const caption = t("request:card.text", { ...requestFacts(request, locale), link: escapeHtml(link) });
  const keyboard = new InlineKeyboard()
    .switchInline(t("request:button.share"), shareQuery(request.token))
    .row()
    .text(t("request:button.cancel"), requestData.pack({ action: "cancel", token: request.token }));
  return { png, caption, keyboard };
}

/** The card sent into any chat through inline mode: the request and one URL button to pay it. */
export function inlineCard(
  request: MoneyRequest,
  t: TFunction,
  locale: string,
  botUsername: string,
): InlineQueryResultArticle {
  const facts = requestFacts(request, locale);
  const link = requestLink(botUsername, request.token);
  return {
    type: "article",
    id: request.token,
    title: t("request:inline.title", { amount: formatOrderMoney(request.amount, locale) }),
    description: t("request:inline.description", { label: request.label }),
    input_message_content: {
      message_text: t("request:inline.text", facts),
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    },
    reply_markup: new InlineKeyboard().url(t("request:button.pay", { amount: facts.amount }), link),
  };
}
