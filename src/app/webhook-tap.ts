import type { FeatureWiring } from "#src/bot/features.js";
import type { RawRequestHandler } from "#src/http/server.js";
import type { Logger } from "#src/log/logger.js";
import type { Store } from "#src/store/index.js";

const FORGED_WINDOW_SECONDS = 5 * 60;

/**
 * Wrap the payout webhook handler: remembers the last authentic delivery (for /health) and raises an ops alert on
 * the first bad signature of a five-minute window.
 */
export function tapWebhook(
  handler: RawRequestHandler,
  deps: { store: Pick<Store, "alerts">; raise: FeatureWiring["raise"]; now(): number; logger: Logger },
): RawRequestHandler {
  return async (request) => {
    const response = await handler(request);
    const at = new Date(deps.now()).toISOString();
    try {
      // Only a delivery that proved its sender: an unsigned ping is answered 200 too, by anyone's hand.
      if (response.authentic && response.status >= 200 && response.status < 300) {
        await deps.store.alerts.recordWebhook(at);
      } else if (response.status === 401) {
        const count = await deps.store.alerts.countForged(FORGED_WINDOW_SECONDS);
        if (count === 1) await deps.raise({ type: "webhook_signature_failed", count, at });
      }
    } catch (error) {
      deps.logger.warn({ err: error }, "webhook tap bookkeeping failed");
    }
    return response;
  };
}
