import { InputFile } from "grammy";
import QRCode from "qrcode";
import type { Quote } from "../../../api/index.ts";
import { escapeHtml } from "../../../i18n/index.ts";
import { formatMoney } from "../../../money/index.ts";
import { formatExpiryTime, renderStatusCard } from "../../../orders/index.ts";
import type { OrderRecord } from "../../../store/index.ts";
import { invoiceKeyboard } from "../../keyboards/payout.ts";
import { formatCountdown } from "../../services/payout-quote.ts";
import type { FlowIo } from "./io.ts";

/** The Lightning invoice as a QR photo ("lightning:" + upper-case BOLT11: a denser, easier QR). */
export function invoiceQrPng(invoice: string): Promise<Buffer> {
  return QRCode.toBuffer(`lightning:${invoice.toUpperCase()}`, {
    type: "png",
    errorCorrectionLevel: "M",
    margin: 2,
    width: 512,
  });
}

/**
 * After Confirm: the QR photo (short caption: amount, expiry, the check code), the BOLT11 text in <code> (one
 * tap copies it) with Simulate (sandbox/staging) and Save recipient, then the one status card the events
 * pipeline edits from here on.
 */
export async function sendInvoice(
  io: FlowIo,
  order: OrderRecord,
  quote: Quote,
  deadlineMs: number,
): Promise<void> {
  const { t, locale } = io;
  const now = await io.conversation.now();
  const deadline = { expiresAt: new Date(deadlineMs).toISOString(), corridor: order.corridor };
  const png = await invoiceQrPng(quote.invoice);
  const photo = await io.ctx.replyWithPhoto(new InputFile(png, "invoice.png"), {
    caption: t("payout:invoice.caption", {
      amount: escapeHtml(formatMoney(order.pay.amount, "BTCSAT", locale)),
      time: formatExpiryTime(deadline, locale),
      countdown: formatCountdown(deadlineMs - now),
      code: order.verificationCode,
    }),
    parse_mode: "HTML",
  });
  const keyboard = invoiceKeyboard(t, order.orderId, {
    simulate: io.deps.config.payout.env !== "production",
    save: !order.recipientId,
  });
  await io.ctx.reply(t("payout:invoice.text", { invoice: escapeHtml(quote.invoice) }), {
    parse_mode: "HTML",
    ...(keyboard ? { reply_markup: keyboard } : {}),
  });
  const card = renderStatusCard(order, t, locale);
  const status = await io.ctx.reply(card.text, {
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
  });
  await io.call("invoice-messages", (deps) =>
    deps.store.orders.annotate(order.orderId, {
      invoiceMessageId: photo.message_id,
      statusMessageId: status.message_id,
    }),
  );
}
