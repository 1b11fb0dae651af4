import type { OrderRecord } from "./order-record.ts";

/**
 * The one status card of an order (src/orders/messages.ts sends and edits it): while it has none, the sender that
 * means to send it claims it on the order itself (`statusCardClaim`, compare-and-set with the rest of the order), and
 * the id it records drops the claim. So a second sender finds either the claim (it is someone else's turn) or the
 * recorded card (it edits that one), never a gap in which both send.
 */

/** How long Confirm keeps the card for the flow that confirmed (it sends it right after; a dead one's lapses). */
export const CONFIRMING_FLOW_CARD_MS = 60_000;

/** What claiming the card found: send it now, edit the recorded one, or leave it to the sender that holds it. */
export type StatusCardClaim =
  | { kind: "send"; order: OrderRecord }
  | { kind: "recorded"; order: OrderRecord; messageId: number }
  | { kind: "busy"; order: OrderRecord; by: string };

/** Whether someone other than `by` holds the card at `nowMs` (the app's clock). */
export function cardHeldByOther(order: OrderRecord, by: string, nowMs: number): boolean {
  const claim = order.statusCardClaim;
  return !!claim && claim.by !== by && claim.until > nowMs;
}

/** Whether `by` itself holds the card for at least `forMs` more at `nowMs` (it may send without claiming again). */
export function cardHeldFor(order: OrderRecord, by: string, nowMs: number, forMs: number): boolean {
  const claim = order.statusCardClaim;
  return !!claim && claim.by === by && claim.until - nowMs >= forMs;
}

/**
 * The claim as a change of the order: taken (or renewed) by `by` until `untilMs` unless a card is recorded or another
 * sender holds it; `takeOver` takes it from a live holder too (the recovery sweep, which runs only after the flow's
 * grace).
 */
export function claimCardChange(
  order: OrderRecord,
  by: string,
  untilMs: number,
  nowMs: number,
  takeOver: boolean,
): { order: OrderRecord; changed: boolean; claim: StatusCardClaim } {
  if (order.statusMessageId !== undefined)
    return { order, changed: false, claim: { kind: "recorded", order, messageId: order.statusMessageId } };
  if (!takeOver && cardHeldByOther(order, by, nowMs))
    return { order, changed: false, claim: { kind: "busy", order, by: order.statusCardClaim!.by } };
  const claimed = { ...order, statusCardClaim: { by, until: untilMs } };
  return { order: claimed, changed: true, claim: { kind: "send", order: claimed } };
}

/**
 * The card sent as `messageId` recorded, its claim dropped. `replacing`: the card it replaces (one that could no
 * longer be edited); a different card recorded meanwhile wins and this one is not recorded.
 */
export function recordCardChange(
  order: OrderRecord,
  messageId: number,
  replacing: number | undefined,
): { order: OrderRecord; changed: boolean } {
  if (order.statusMessageId !== undefined && order.statusMessageId !== replacing)
    return { order, changed: false };
  const { statusCardClaim: _dropped, ...rest } = order;
  return { order: { ...rest, statusMessageId: messageId }, changed: true };
}
