import type { TFunction } from "i18next";
import { escapeHtml } from "#src/i18n/index.js";
import { formatDateTime } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/order-record.js";
import { breakdownLines } from "./quote-lines.ts";
import { formatOrderMoney } from "./status-card.ts";

/**
 * The receipt of a completed order: a plain message (no buttons) the user can forward to the recipient or keep,
 * with what was delivered, what was paid, when, and the provider's reference (the NIP session id of a Nigerian
 * transfer, the M-Pesa receipt of a Kenyan one, the transaction id of a bitcoin purchase).
 */
export function renderReceipt(order: OrderRecord, t: TFunction, locale: string, botUsername: string): string {
  const buy = order.kind === "buy";
  const lines = [
    t(buy ? "status:receipt.title_buy" : "status:receipt.title"),
    t("status:receipt.order", { orderId: escapeHtml(order.orderId) }),
    escapeHtml(receiptDate(order, locale)),
    "",
  ];
  if (!buy) lines.push(t("status:receipt.recipient", { recipient: escapeHtml(order.recipientLabel) }));
  lines.push(
    t(buy ? "status:receipt.delivered_buy" : "status:receipt.delivered", {
      amount: formatOrderMoney(order.receive, locale),
    }),
    t("status:receipt.paid", {
      amount: formatOrderMoney(order.pay, locale),
      fee: formatOrderMoney(order.fee, locale),
    }),
  );
  const { rate } = breakdownLines(order, t, locale);
  if (rate) lines.push(rate);
  if (order.payoutReference && !buy) {
    lines.push(
      t("status:receipt.reference_line", {
        label: t(`status:receipt.reference.${order.corridor}`),
        reference: escapeHtml(order.payoutReference),
      }),
    );
  }
  if (order.txid) lines.push(t("status:field.txid", { txid: escapeHtml(order.txid) }));
  lines.push(
    "",
    t(buy ? "status:receipt.footer_buy" : "status:receipt.footer", { bot: escapeHtml(botUsername) }),
  );
  return lines.join("\n");
}

/** When the order reached its final stage (its last update), in the corridor's time zone with the zone's name. */
function receiptDate(order: OrderRecord, locale: string): string {
  const ms = Date.parse(order.updatedAt);
  return Number.isNaN(ms) ? order.updatedAt : formatDateTime(ms, locale, order.corridor);
}
