import { InlineKeyboard } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import type { TFunction } from "#src/i18n/index.js";
import { renderStatusCard } from "#src/orders/index.js";
import type { OrderRecord } from "#src/store/index.js";
import { payoutSimulateData } from "../callback-data.ts";

/**
 * The status card of a naira-funded payout while it waits for the transfer: in the sandbox and staging it adds a
 * button that simulates the bank transfer (the sandbox's pay-in simulation, for the exact total).
 */
export function nairaStatusKeyboard(
  deps: Pick<BotDeps, "config">,
  order: OrderRecord,
  t: TFunction,
  cardKeyboard: InlineKeyboard | undefined,
): InlineKeyboard | undefined {
  if (deps.config.payout.env === "production" || order.stage !== "awaiting_payment") return cardKeyboard;
  const keyboard = InlineKeyboard.from(cardKeyboard?.inline_keyboard ?? []);
  return keyboard.row().text(t("naira:simulate.button"), payoutSimulateData.pack({ orderId: order.orderId }));
}

/**
 * After Confirm: the one status card the events pipeline edits from here on (the transfer details stay on the
 * quote card above it), recorded on the order so the recovery sweep never sends it twice.
 */
export async function sendNairaStatus(io: FlowIo, order: OrderRecord): Promise<void> {
  const { t, locale } = io;
  const statusMessageId = await io.telegram(async (outside) => {
    const recorded = await io.deps.store.orders.get(order.orderId);
    if (recorded?.deliveredAt && recorded.statusMessageId) return recorded.statusMessageId;
    const card = renderStatusCard(recorded ?? order, t, locale);
    const keyboard = nairaStatusKeyboard(io.deps, recorded ?? order, t, card.keyboard);
    const sent = await outside.reply(card.text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(keyboard ? { reply_markup: keyboard } : {}),
    });
    return sent.message_id;
  });
  await io.call("naira-status-message", async (deps) => {
    await deps.store.orders.annotate(order.orderId, {
      statusMessageId,
      deliveredAt: new Date(deps.now()).toISOString(),
    });
  });
}
