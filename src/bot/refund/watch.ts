import type { FeatureRuntime } from "#src/bot/flow/feature.js";
import { readBackRefund } from "./settlement.ts";

const REFUND_STUCK_MS = 10 * 60_000;
const REFUND_STUCK_REPEAT_SECONDS = 6 * 3600;

/**
 * Part of the periodic ops check: refunds sent or uncertain are read back from the API (a lost webhook, an
 * uncertain answer); those still open (awaiting approval, paying, sent, uncertain) after REFUND_STUCK_MS are told
 * to ops once.
 */
export function refundCheck({ deps, telegram, raise }: FeatureRuntime): () => Promise<void> {
  const logger = deps.logger.child({ module: "refunds" });
  return async () => {
    for (const refund of await deps.store.refunds.listOpen()) {
      await readBackRefund(deps, telegram, refund).catch((error: unknown) =>
        logger.warn({ err: error, orderId: refund.orderId }, "refund read-back failed"),
      );
    }
    for (const refund of await deps.store.refunds.listOpen(deps.now() - REFUND_STUCK_MS)) {
      if (!(await deps.store.alerts.claimRefundStuck(refund.orderId, REFUND_STUCK_REPEAT_SECONDS))) continue;
      await raise({
        type: "refund",
        orderId: refund.orderId,
        userId: refund.userId,
        state: refund.state,
        amountSats: refund.amountSats,
        currency: refund.currency,
        stuck: true,
        at: new Date(deps.now()).toISOString(),
      });
    }
  };
}
