import { PayoutApiError } from "../../api/index.ts";
import type { TFunction } from "../../i18n/index.ts";

/**
 * A calm, specific sentence for a payout API failure. Validation messages from the API are business rules the user
 * can act on ("Amount too small"), so they are shown (escaped by the caller); everything else gets our own words.
 */
export function describeApiError(error: unknown, t: TFunction): { text: string; retryable: boolean } {
  if (error instanceof PayoutApiError) {
    switch (error.kind) {
      case "timeout":
      case "network":
        return { text: t("errors:api.unreachable"), retryable: true };
      case "rate_limited":
        return {
          text: t("errors:api.rate_limited", {
            seconds: Math.max(1, Math.ceil((error.retryAfterMs ?? 5_000) / 1000)),
          }),
          retryable: true,
        };
      case "server":
      case "invalid_response":
        return { text: t("errors:api.server"), retryable: true };
      case "validation":
        return { text: t("errors:api.rejected", { reason: error.apiMessage ?? "" }), retryable: false };
      case "not_found":
        return { text: t("errors:api.not_found"), retryable: false };
      case "auth":
        return { text: t("errors:api.unavailable"), retryable: false };
    }
  }
  return { text: t("errors:unexpected"), retryable: true };
}
