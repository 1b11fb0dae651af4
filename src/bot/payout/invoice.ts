import { InputFile } from "grammy";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { qrPng } from "#src/bot/flow/qr-png.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import { formatExpiryTime, renderStatusCard } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { invoiceKeyboard } from "./keyboards.ts";
import { invoiceQrData } from "./qr.ts";
import { formatCountdown } from "./quote-orders.ts";

/**
 * The Lightning invoice as a QR photo ("lightning:" + upper-case BOLT11: a denser, easier QR): ~500 px, whole
 * pixels per module (at least 4) and the 4-module quiet zone phone cameras need.
 */
export async function invoiceQrPng(invoice: string): Promise<Buffer> {
  return qrPng(invoiceQrData(invoice), {
    errorCorrectionLevel: "M",
    margin: 4,
    targetSize: 512,
    minScale: 4,
  }).png;
}

/**
 * After Confirm: the QR photo (short caption: amount, expiry, the check code), the BOLT11 text in <code> (one
 * tap copies it) with Simulate (sandbox/staging) and Save recipient, then the one status card the events
 * pipeline edits from here on. The flow ends here, so the three messages go out in one step of the log.
 */
export async function sendInvoice(
  io: FlowIo,
  order: OrderRecord,
  invoice: string,
  deadlineMs: number,
): Promise<void> {
  const { t, locale } = io;
  const now = await io.now();
  const simulate = io.deps.config.payout.env !== "production";
  const sent = await io.telegram(async (outside) => {
    // The recovery sweep may have delivered them already (this process stalled past its grace): never twice.
    const recorded = await io.deps.store.orders.get(order.orderId);
    if (recorded?.deliveredAt && recorded.invoiceMessageId && recorded.statusMessageId) {
      return { photo: recorded.invoiceMessageId, status: recorded.statusMessageId };
    }
    const deadline = { expiresAt: new Date(deadlineMs).toISOString(), corridor: order.corridor };
    const png = await invoiceQrPng(invoice);
    const photo = await outside.replyWithPhoto(new InputFile(png, "invoice.png"), {
      caption: t("payout:invoice.caption", {
        amount: escapeHtml(formatMoney(order.pay.amount, "BTCSAT", locale)),
        time: formatExpiryTime(deadline, locale),
        countdown: formatCountdown(deadlineMs - now),
        code: order.verificationCode,
      }),
      parse_mode: "HTML",
    });
    const keyboard = invoiceKeyboard(t, order.orderId, { simulate, save: !order.recipientId });
    await outside.reply(t("payout:invoice.text", { invoice: escapeHtml(invoice) }), {
      parse_mode: "HTML",
      ...(keyboard ? { reply_markup: keyboard } : {}),
    });
    const card = renderStatusCard(order, t, locale);
    const status = await outside.reply(card.text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
    });
    return { photo: photo.message_id, status: status.message_id };
  });
  await io.call("invoice-messages", async (deps) => {
    await deps.store.orders.annotate(order.orderId, {
      invoiceMessageId: sent.photo,
      statusMessageId: sent.status,
      deliveredAt: new Date(deps.now()).toISOString(),
    });
  });
}
