import type { Core } from "#src/standins/sandbox/core.js";
import { paymentLinkDetails } from "#src/standins/sandbox/domain/paymentlinks.js";
import type { HandlerResult } from "#src/standins/sandbox/http/router.js";
import { formatMajor } from "#src/standins/sandbox/units.js";

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A bare stand-in for the hosted checkout page that POST /paymentlink links to. */
export function checkoutPage(core: Core, id: string): HandlerResult {
  const link = core.state.paymentLinks.get(id);
  if (!link) {
    return {
      status: 404,
      raw: { contentType: "text/html; charset=utf-8", text: "<h1>Payment link not found</h1>" },
    };
  }
  const rows = link.paymentMethods
    .map((method) => {
      const details = paymentLinkDetails(core, link, method).paymentLinkDetails;
      const order = escapeHtml(details.paymentLinkOrderId ?? "");
      const bank = details.BANKTRANSFER;
      const lightning = details.LIGHTNING;
      if (bank) {
        return (
          `<p>Pay <b>${formatMajor(bank.amount, "NGN")} NGN</b> to ${escapeHtml(bank.ngnBankName)} ` +
          `${escapeHtml(bank.ngnBankAccountNumber)} (${escapeHtml(bank.ngnAccountName)}) before ${bank.expiresAt}.</p>` +
          `<p>You receive ${bank.targetAmount} sats on-chain. Order ${order}.</p>`
        );
      }
      if (lightning) {
        return (
          `<p>Or pay <b>${lightning.amount} sats</b> over Lightning before ${lightning.expiresAt}:</p>` +
          `<p><code>${escapeHtml(lightning.invoice)}</code></p>` +
          `<p>${lightning.targetAmount} sats settle on-chain. Order ${order}.</p>`
        );
      }
      return "";
    })
    .join("");
  const text =
    `<!doctype html><meta charset="utf-8"><title>${escapeHtml(link.name)}</title>` +
    `<h1>${escapeHtml(link.name)}</h1><p>${escapeHtml(link.description)}</p>${rows || "<p>No open order.</p>"}` +
    "<p><small>Mavapay sandbox checkout — simulate the payment with POST /api/v1/simulation/pay-in.</small></p>";
  return { raw: { contentType: "text/html; charset=utf-8", text } };
}
