import { InlineKeyboard } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import type { TFunction } from "#src/i18n/index.js";
import { createOrderMessages, telegramError, type View } from "#src/orders/messages.js";
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
 * quote card above it), through the order's message owner (Confirm claimed the card for this flow), so neither the
 * recovery sweep nor a delivery ever sends a second one.
 */
export async function sendNairaStatus(io: FlowIo, order: OrderRecord): Promise<void> {
  const view: View = { t: io.t, locale: io.locale };
  await io.telegram(async (outside) => {
    const { store, now, logger } = io.deps;
    const recorded = await store.orders.get(order.orderId);
    if (recorded?.deliveredAt && recorded.statusMessageId) return;
    const current = recorded ?? order;
    const messages = createOrderMessages({ telegram: outside.api, store, now, logger });
    const keyboard = (rendered: InlineKeyboard | undefined) =>
      nairaStatusKeyboard(io.deps, current, view.t, rendered);
    await messages.showStatus(current, view, { by: "flow", keyboard }).catch((error) => {
      throw telegramError(error);
    });
  });
  await io.call("naira-status-message", async (deps) => {
    await deps.store.orders.annotate(order.orderId, { deliveredAt: new Date(deps.now()).toISOString() });
  });
}
