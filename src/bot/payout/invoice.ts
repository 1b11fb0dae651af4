import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { qrPng } from "#src/bot/flow/qr-png.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import { formatExpiryTime } from "#src/orders/index.js";
import { createOrderMessages, type RenderedInvoice, telegramError, type View } from "#src/orders/messages.js";
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
 * The invoice's two messages in the owner's language (src/orders/messages.ts sends them): the QR photo's caption
 * (amount, expiry, the time left on the API's clock, the check code) and the BOLT11 text in <code> (one tap copies
 * it) with Simulate (sandbox/staging) and Save recipient.
 */
export async function renderInvoice(
  order: OrderRecord,
  invoice: string,
  view: View,
  at: { nowMs: number; deadlineMs: number; simulate: boolean },
): Promise<RenderedInvoice> {
  const { t, locale } = view;
  const deadline = { expiresAt: new Date(at.deadlineMs).toISOString(), corridor: order.corridor };
  return {
    png: await invoiceQrPng(invoice),
    caption: t("payout:invoice.caption", {
      amount: escapeHtml(formatMoney(order.pay.amount, "BTCSAT", locale)),
      time: formatExpiryTime(deadline, locale),
      countdown: formatCountdown(at.deadlineMs - at.nowMs),
      code: order.verificationCode,
    }),
    text: t("payout:invoice.text", { invoice: escapeHtml(invoice) }),
    keyboard: invoiceKeyboard(t, order.orderId, { simulate: at.simulate, save: !order.recipientId }),
  };
}

/**
 * After Confirm: the invoice (QR photo, BOLT11 text), then the one status card the events pipeline edits from here
 * on, both through the order's message owner (Confirm claimed the card for this flow). The flow ends here, so the
 * three messages go out in one step of the log.
 */
export async function sendInvoice(
  io: FlowIo,
  order: OrderRecord,
  invoice: string,
  deadlineMs: number,
): Promise<void> {
  const view: View = { t: io.t, locale: io.locale };
  const nowMs = await io.now();
  const simulate = io.deps.config.payout.env !== "production";
  const sent = await io.telegram(async (outside) => {
    const { store, now, logger } = io.deps;
    // The recovery sweep may have delivered them already (this process stalled past its grace): never twice.
    const recorded = await store.orders.get(order.orderId);
    if (recorded?.deliveredAt && recorded.invoiceMessageId && recorded.statusMessageId) {
      return { photo: recorded.invoiceMessageId };
    }
    const current = recorded ?? order;
    const messages = createOrderMessages({ telegram: outside.api, store, now, logger });
    try {
      const rendered = await renderInvoice(current, invoice, view, { nowMs, deadlineMs, simulate });
      const photo = await messages.sendInvoice(current, rendered);
      await messages.showStatus(current, view, { by: "flow" });
      return { photo };
    } catch (error) {
      // The flow's log tells Telegram's refusals apart by their own class.
      throw telegramError(error);
    }
  });
  await io.call("invoice-messages", async (deps) => {
    await deps.store.orders.annotate(order.orderId, {
      invoiceMessageId: sent.photo,
      deliveredAt: new Date(deps.now()).toISOString(),
    });
  });
}
