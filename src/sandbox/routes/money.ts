import type { Core } from "../core.ts";
import {
  createPaymentLink,
  findLinkOrder,
  paymentLinkDetails,
  paymentLinkUrl,
} from "../domain/paymentlinks.ts";
import type { PaymentLinkRecord } from "../domain/state.ts";
import { paymentLinkView, transactionView } from "../domain/views.ts";
import { withdrawBtc, withdrawNgn } from "../domain/withdrawals.ts";
import { badRequest, notFound, parseWith } from "../http/errors.ts";
import type { RequestContext, Router } from "../http/router.ts";
import { API_PREFIX } from "../http/server.ts";
import { paymentLinkRequest, withdrawBtcRequest, withdrawRequest } from "../schemas/requests.ts";
import { ok } from "./helpers.ts";

/** Withdrawals and payment links. */
export function registerMoneyRoutes(router: Router, core: Core): void {
  const api = (path: string) => `${API_PREFIX}${path}`;

  router.add("POST", api("/withdraw"), "key", (request) => {
    const withdrawal = withdrawNgn(core, parseWith(withdrawRequest, request.body));
    return ok(transactionView(withdrawal.tx), undefined, { after: withdrawal.settle });
  });

  router.add("POST", api("/withdraw/btc"), "key", (request) => {
    const withdrawal = withdrawBtc(core, parseWith(withdrawBtcRequest, request.body));
    return ok(transactionView(withdrawal.tx), undefined, { after: withdrawal.settle });
  });

  router.add("POST", api("/paymentlink"), "key", (request) => {
    const link = createPaymentLink(core, parseWith(paymentLinkRequest, request.body));
    return ok(
      { paymentLink: paymentLinkUrl(core, link), paymentRef: link.id },
      "payment link created successfully",
    );
  });

  const linkFrom = (request: RequestContext): PaymentLinkRecord => {
    const id = request.query.get("id")?.trim();
    if (!id) throw badRequest("id is required (the payment link ID / paymentRef)");
    const link = core.state.paymentLinks.get(id);
    if (!link) throw notFound("Payment link not found");
    return link;
  };

  const details = (request: RequestContext) => {
    const method = request.query.get("paymentMethod")?.trim().toUpperCase();
    if (method !== undefined && method !== "" && method !== "BANKTRANSFER") {
      throw badRequest("Invalid payment method: only BANKTRANSFER is supported for payment links");
    }
    return ok(paymentLinkDetails(core, linkFrom(request)), "payment link details retrieved successfully");
  };
  router.add("GET", api("/paymentlink/details"), "key", details);
  // Undocumented route the hosted checkout uses (notes §9); keyless there, keyless here.
  router.add("GET", api("/paymentlink/refresh"), "public", details);

  router.add("GET", api("/paymentlink/orders"), "key", (request) =>
    ok(paymentLinkView(core, linkFrom(request)), "payment link orders retrieved successfully"),
  );

  router.add("GET", api("/paymentlink/status"), "public", (request) => {
    const orderId = request.query.get("orderId")?.trim();
    if (!orderId) throw badRequest("orderId is required");
    const order = findLinkOrder(core, orderId);
    if (!order) throw notFound("Payment link order not found");
    return ok({ status: order.status });
  });
}
