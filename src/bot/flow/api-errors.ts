import { PayoutApiError } from "#src/api/index.js";
import type { TFunction } from "#src/i18n/index.js";

/**
 * The API's validation messages we know, each turned into our own translated sentence with the next step (namespace
 * `quote`, keys `api.*`). The API's text itself never reaches a user: it is English, terse, and may name internal
 * fields; anything unknown gets the generic "could not accept this" with what to do.
 */
const VALIDATION_MESSAGES: ReadonlyArray<[RegExp, string]> = [
  [/invalid quote|quote (?:not found|expired)|invoice expired|expired/i, "quote:api.quote_invalid"],
  [/already paid/i, "quote:api.already_paid"],
  [/too small|minimum|below/i, "quote:api.amount_too_small"],
  [/amount mismatch/i, "quote:api.amount_mismatch"],
  [/insufficient/i, "quote:api.insufficient_balance"],
  [/address|invoice|lnurl|lightning/i, "quote:api.address_rejected"],
  [/account|bank|name mismatch|verification/i, "quote:api.account_rejected"],
];

/** The translation key for an API validation message. */
export function validationMessageKey(apiMessage: string | undefined): string {
  const message = apiMessage ?? "";
  return VALIDATION_MESSAGES.find(([pattern]) => pattern.test(message))?.[1] ?? "quote:api.rejected";
}

/**
 * The API refused to pay a quote that is paid already: what a payment retried after its first try's process died
 * gets (the first try went through). Not a failure to show; the order's status card tells the rest.
 */
export function isAlreadyPaid(error: unknown): boolean {
  return (
    error instanceof PayoutApiError &&
    error.kind === "validation" &&
    /already paid/i.test(error.apiMessage ?? "")
  );
}

/** A calm, specific sentence for a payout API failure, always in our own translated words. */
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
        return { text: t(validationMessageKey(error.apiMessage)), retryable: false };
      case "not_found":
        return { text: t("errors:api.not_found"), retryable: false };
      case "auth":
        return { text: t("errors:api.unavailable"), retryable: false };
    }
  }
  return { text: t("errors:unexpected"), retryable: true };
}
