import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { escapeHtml } from "#src/i18n/index.js";
import { type Country, currencyOfCountry, formatMoney } from "#src/money/index.js";
import type { Allowance } from "./allowance.ts";

/** Shown above the amount prompt when an amount is over what the user may still send today. */
export function overLimitNotice(io: FlowIo, country: Country, allowance: Allowance): string {
  const currency = currencyOfCountry(country);
  const money = (minor: number) => escapeHtml(formatMoney(minor, currency, io.locale));
  return io.t(
    allowance.remaining > 0 ? "payout:amount.error.over_limit" : "payout:amount.error.limit_reached",
    {
      left: money(allowance.remaining),
      limit: money(allowance.limit),
      country: io.t(`payout:country.names.${country}`),
    },
  );
}
