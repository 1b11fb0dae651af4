import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { decodeLightningInvoice, invoiceFitsNetwork } from "#src/bot/rules/treasury.js";
import { formatMoney } from "#src/money/index.js";
import type { ApprovalPayload } from "#src/store/index.js";
import { askText } from "./prompt.ts";

/** Leave the approver time to act: an invoice expiring sooner than this is refused up front. */
const MIN_INVOICE_LIFETIME_MS = 2 * 60_000;

/**
 * /withdraw_btc: a Lightning invoice → decoded amount and expiry (light-bolt11-decoder), checked against the
 * deployment's network. Amountless invoices are refused: the approver must see the amount that leaves.
 */
export async function collectBtcWithdrawal(
  conversation: FlowConversation,
  ctx: FlowContext,
  owner: number,
): Promise<{ payload: Extract<ApprovalPayload, { kind: "withdraw_btc" }>; ctx: FlowContext }> {
  const deps = ctx.deps;
  const balance = await conversation.external(() =>
    deps.api
      .getWallets({ currency: "BTC" })
      .then((wallets) => wallets.find((wallet) => wallet.currency.toUpperCase() === "BTC")?.balance ?? null)
      .catch(() => null),
  );
  const balanceLine =
    balance === null
      ? ""
      : ctx.t("admin:withdraw.balance", { balance: formatMoney(balance, "BTCSAT", ctx.locale) });
  let ask = `${ctx.t("admin:withdraw.btc.invoice_prompt")}${balanceLine}`;
  let current = ctx;
  for (;;) {
    const input = await askText(conversation, current, owner, ask, "lnbc…");
    current = input.ctx;
    const decoded = decodeLightningInvoice(input.text);
    const now = await conversation.now();
    if (!decoded) ask = current.t("admin:withdraw.btc.invalid");
    else if (!invoiceFitsNetwork(decoded, deps.config.bitcoinNetwork))
      ask = current.t("admin:withdraw.btc.wrong_network", { network: deps.config.bitcoinNetwork });
    else if (decoded.amountSats === null || decoded.amountSats <= 0)
      ask = current.t("admin:withdraw.btc.amountless");
    else if (decoded.expiresAt - now < MIN_INVOICE_LIFETIME_MS) ask = current.t("admin:withdraw.btc.expired");
    else {
      return {
        ctx: current,
        payload: {
          kind: "withdraw_btc",
          invoice: decoded.invoice,
          amountSats: decoded.amountSats,
          invoiceExpiresAt: decoded.expiresAt,
          ...(decoded.paymentHash ? { paymentHash: decoded.paymentHash } : {}),
          ...(decoded.description ? { memo: decoded.description.slice(0, 120) } : {}),
        },
      };
    }
  }
}
