import type { Core } from "#src/standins/sandbox/core.js";
import {
  createPaymentLink,
  defaultLinkMethod,
  findLinkOrder,
  paymentLinkDetails,
  paymentLinkUrl,
  refreshLinkOrder,
} from "#src/standins/sandbox/domain/paymentlinks.js";
import type { PaymentLinkRecord, PaymentMethod } from "#src/standins/sandbox/domain/state.js";
import { paymentLinkView, transactionView } from "#src/standins/sandbox/domain/views.js";
import { withdrawBtc, withdrawNgn } from "#src/standins/sandbox/domain/withdrawals.js";
import { badRequest, notFound, parseWith } from "#src/standins/sandbox/http/errors.js";
import type { RequestContext, Router } from "#src/standins/sandbox/http/router.js";
import { API_PREFIX } from "#src/standins/sandbox/http/server.js";
import {
  paymentLinkRequest,
  withdrawBtcRequest,
  withdrawRequest,
} from "#src/standins/sandbox/schemas/requests.js";
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

  const methodFrom = (request: RequestContext, link: PaymentLinkRecord): PaymentMethod => {
    const asked = request.query.get("paymentMethod")?.trim().toUpperCase();
    if (asked === undefined || asked === "") return defaultLinkMethod(link);
    const method = link.paymentMethods.find((candidate) => candidate === asked);
    if (!method) {
      throw badRequest(`Invalid payment method: this link accepts ${link.paymentMethods.join(", ")}`);
    }
    return method;
  };

  // The hosted checkout calls details, refresh and status with no key (notes §9, §11): so does the emulator.
  router.add("GET", api("/paymentlink/details"), "public", (request) => {
    const link = linkFrom(request);
    return ok(
      paymentLinkDetails(core, link, methodFrom(request, link)),
      "payment link details retrieved successfully",
    );
  });
  router.add("GET", api("/paymentlink/refresh"), "public", (request) => {
    const link = linkFrom(request);
    const method = methodFrom(request, link);
    refreshLinkOrder(core, link, method);
    return ok(paymentLinkDetails(core, link, method), "payment link details retrieved successfully");
  });

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
