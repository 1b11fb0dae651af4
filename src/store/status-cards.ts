import type { OrderRepository } from "./orders.ts";
import { claimCardChange, recordCardChange, type StatusCardClaim } from "./status-card-claim.ts";

/** The status card's claim and record on the order (store/status-card-claim.ts), on the app's clock. */
export class StatusCards {
  constructor(
    private readonly orders: OrderRepository,
    private readonly now: () => number,
  ) {}

  /** Claim the order's card for `by` for `ttlMs`, or find it recorded or held by another sender. */
  async claim(
    orderId: string,
    by: string,
    ttlMs: number,
    takeOver = false,
  ): Promise<StatusCardClaim | undefined> {
    let claim: StatusCardClaim | undefined;
    const nowMs = this.now();
    const written = await this.orders.update(orderId, (order) => {
      const change = claimCardChange(order, by, nowMs + ttlMs, nowMs, takeOver);
      claim = change.claim;
      return change;
    });
    return written && claim;
  }

  /** Record the card sent as `messageId` (its claim dropped); the order as it now is (another card if one won). */
  record(orderId: string, messageId: number, replacing?: number) {
    return this.orders.update(orderId, (order) => recordCardChange(order, messageId, replacing));
  }
}
