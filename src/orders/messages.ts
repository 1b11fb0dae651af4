import { type Api, GrammyError, type InlineKeyboard, InputFile } from "grammy";
import type { TFunction } from "i18next";
import type { Logger } from "#src/log/logger.js";
import type { Metrics } from "#src/metrics.js";
import { cardHeldByOther, cardHeldFor, type OrderRecord, type Store } from "#src/store/index.js";
import { type RenderedCard, renderStatusCard } from "./status-card.ts";

/**
 * The one owner of an order's own messages: the invoice (QR photo + BOLT11 text) and the status card. The confirm
 * flow, the recovery sweep and the events pipeline all send and edit them here. While an order has no card, whoever
 * is about to send one claims it on the order first (store/status-card-claim.ts; Confirm claims it for the flow);
 * the id it records drops the claim. A second sender therefore edits the recorded card, or, while the claim is
 * someone else's, is told `busy` and comes back (the delivery retries shortly): never two cards.
 */

/** Who sends: the confirm flow, the recovery sweep (takes the card over: it runs after the flow's grace), delivery. */
export type CardSender = "flow" | "recovery" | "delivery";

/** The user blocked the bot, deleted their account or never started it: nothing more can be sent. */
export class UnreachableUserError extends Error {
  constructor(
    readonly userId: number,
    readonly description: string,
    /** Telegram's refusal, for a caller that tells its own errors apart (the flow's log keeps GrammyErrors). */
    readonly refusal?: GrammyError,
  ) {
    super(`user ${userId} is unreachable: ${description}`);
    this.name = "UnreachableUserError";
  }
}

/** Telegram's own error behind an UnreachableUserError (for a caller whose log keeps GrammyErrors: the flows). */
export function telegramError(error: unknown): unknown {
  return error instanceof UnreachableUserError && error.refusal ? error.refusal : error;
}

export interface View {
  t: TFunction;
  /** Intl locale of the owner's language. */
  locale: string;
}

/** The invoice as the payout flow renders it (src/bot/payout/invoice.ts `renderInvoice`). */
export interface RenderedInvoice {
  png: Buffer;
  caption: string;
  text: string;
  keyboard?: InlineKeyboard | undefined;
}

export interface CardOptions {
  by: CardSender;
  /** The card's keyboard from the rendered one (a buy's and a naira payout's add a Simulate button). */
  keyboard?: (rendered: InlineKeyboard | undefined) => InlineKeyboard | undefined;
}

export interface OrderMessagesDeps {
  telegram: Api;
  store: Pick<Store, "statusCards">;
  /** The app's clock (the payout API's): the card's claim lapses on it. */
  now: () => number;
  logger: Logger;
  metrics?: Metrics | undefined;
}

/** How long a claim to send the card lasts: one sendMessage, with the Api's own retries. */
const CARD_CLAIM_MS = 30_000;
const UNREACHABLE =
  /bot was blocked|user is deactivated|chat not found|bot can't initiate|PEER_ID_INVALID|bot was kicked/i;
const NOT_MODIFIED = /message is not modified/i;

export type OrderMessages = ReturnType<typeof createOrderMessages>;

export function createOrderMessages(deps: OrderMessagesDeps) {
  const { telegram, logger } = deps;
  const call = <T>(order: OrderRecord, method: string, run: () => Promise<T>) =>
    telegramCall(logger, order, method, run);
  const edit = (order: OrderRecord, messageId: number, card: RenderedCard, kind = "card_edit") =>
    editCard(deps, order, messageId, card, kind);
  const sendCard = (order: OrderRecord, card: RenderedCard, replacing?: number) =>
    sendAndRecordCard(deps, order, card, replacing);

  /**
   * Bring the status card to `order`'s state: edit it in place, or, when there is none or it can no longer be edited
   * (deleted, too old), send one and record it. `busy`: another sender holds the card (it is sending it now).
   */
  async function showStatus(
    order: OrderRecord,
    view: View,
    options: CardOptions,
  ): Promise<OrderRecord | "busy"> {
    const rendered = renderStatusCard(order, view.t, view.locale);
    const card = options.keyboard ? { ...rendered, keyboard: options.keyboard(rendered.keyboard) } : rendered;
    if (order.statusMessageId !== undefined) {
      if (await edit(order, order.statusMessageId, card)) return order;
      return sendCard(order, card, order.statusMessageId);
    }
    // A claim in the order as read is enough to wait, or, when it is this sender's own for long enough (Confirm
    // took it for the flow, and the flow read the order after), to send: no round trip for either.
    const nowMs = deps.now();
    if (options.by !== "recovery" && cardHeldByOther(order, options.by, nowMs)) return "busy";
    if (cardHeldFor(order, options.by, nowMs, CARD_CLAIM_MS)) return sendCard(order, card);
    const claim = await deps.store.statusCards.claim(
      order.orderId,
      options.by,
      CARD_CLAIM_MS,
      options.by === "recovery",
    );
    if (!claim) return order;
    if (claim.kind === "busy") return "busy";
    if (claim.kind === "recorded")
      return showStatus({ ...order, statusMessageId: claim.messageId }, view, options);
    return sendCard(order, card);
  }

  /** The invoice: its QR photo with the caption, then the BOLT11 text with its buttons. Returns the photo's id. */
  async function sendInvoice(order: OrderRecord, invoice: RenderedInvoice): Promise<number> {
    const photo = await call(order, "sendPhoto", () =>
      telegram.sendPhoto(order.chatId, new InputFile(invoice.png, "invoice.png"), {
        caption: invoice.caption,
        parse_mode: "HTML",
      }),
    );
    await call(order, "sendMessage", () =>
      telegram.sendMessage(order.chatId, invoice.text, {
        parse_mode: "HTML",
        ...(invoice.keyboard ? { reply_markup: invoice.keyboard } : {}),
      }),
    );
    return photo.message_id;
  }

  /** Edit the card in place only (a view that learned of a change first); false when there is none or it is gone. */
  async function refreshStatus(order: OrderRecord, view: View): Promise<boolean> {
    if (order.statusMessageId === undefined) return false;
    return edit(order, order.statusMessageId, renderStatusCard(order, view.t, view.locale));
  }

  /** A new card in place of the current one (ops' re-delivery): the one edited from now on. */
  function resendStatus(order: OrderRecord, view: View): Promise<OrderRecord> {
    return sendCard(order, renderStatusCard(order, view.t, view.locale), order.statusMessageId);
  }

  return {
    showStatus,
    refreshStatus,
    resendStatus,
    sendInvoice,
    /** An order's card in another shape (an expired quote's card): edited in place, never sent. */
    editCard: edit,
  };
}

/** True when the message now shows `card` (including "not modified"); false when it cannot be edited. */
async function editCard(
  deps: OrderMessagesDeps,
  order: OrderRecord,
  messageId: number,
  card: RenderedCard,
  kind: string,
): Promise<boolean> {
  try {
    await telegramCall(deps.logger, order, "editMessageText", () =>
      deps.telegram.editMessageText(order.chatId, messageId, card.text, messageOptions(card.keyboard)),
    );
    deps.metrics?.notifications.inc({ kind });
    return true;
  } catch (error) {
    if (error instanceof GrammyError && NOT_MODIFIED.test(error.description)) return true;
    if (!(error instanceof GrammyError && error.error_code === 400)) throw error;
    deps.logger.info({ orderId: order.orderId, messageId, reason: error.description }, "card not editable");
    return false;
  }
}

/** Send the card and record it; a card recorded by someone else meanwhile wins and this one is taken back. */
async function sendAndRecordCard(
  deps: OrderMessagesDeps,
  order: OrderRecord,
  card: RenderedCard,
  replacing?: number,
): Promise<OrderRecord> {
  const sent = await telegramCall(deps.logger, order, "sendMessage", () =>
    deps.telegram.sendMessage(order.chatId, card.text, messageOptions(card.keyboard)),
  );
  deps.metrics?.notifications.inc({ kind: "card_new" });
  const recorded = await deps.store.statusCards.record(order.orderId, sent.message_id, replacing);
  const winner = recorded?.statusMessageId ?? sent.message_id;
  if (winner !== sent.message_id) {
    deps.logger.warn({ orderId: order.orderId }, "a second status card was sent; deleting it");
    await deps.telegram.deleteMessage(order.chatId, sent.message_id).catch(() => undefined);
    await editCard(deps, { ...order, statusMessageId: winner }, winner, card, "card_edit");
  }
  return { ...order, statusMessageId: winner };
}

/**
 * Turn "cannot reach this user" into UnreachableUserError. (Errors are counted by method and code in the Api's own
 * transformer, app.ts, which sees every call.)
 */
export async function telegramCall<T>(
  logger: Logger,
  order: Pick<OrderRecord, "orderId" | "userId">,
  method: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    logger.debug({ method, orderId: order.orderId, err: error }, "telegram call failed");
    if (
      error instanceof GrammyError &&
      (error.error_code === 403 || (error.error_code === 400 && UNREACHABLE.test(error.description)))
    ) {
      throw new UnreachableUserError(order.userId, error.description, error);
    }
    throw error;
  }
}

export function messageOptions(keyboard: InlineKeyboard | undefined) {
  return {
    parse_mode: "HTML" as const,
    link_preview_options: { is_disabled: true },
    ...(keyboard ? { reply_markup: keyboard } : {}),
  };
}
