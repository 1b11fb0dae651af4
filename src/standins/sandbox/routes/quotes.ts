import type { Core } from "#src/standins/sandbox/core.js";
import { createQuote, findQuote, quoteParamsFromRequest } from "#src/standins/sandbox/domain/quotes.js";
import { payIn } from "#src/standins/sandbox/domain/settlement.js";
import { findTransaction } from "#src/standins/sandbox/domain/transactions.js";
import {
  orderListView,
  orderView,
  quoteView,
  transactionDetail,
} from "#src/standins/sandbox/domain/views.js";
import { badRequest, notFound, parseWith } from "#src/standins/sandbox/http/errors.js";
import type { Router } from "#src/standins/sandbox/http/router.js";
import { API_PREFIX } from "#src/standins/sandbox/http/server.js";
import { quoteRequest, simulationRequest } from "#src/standins/sandbox/schemas/requests.js";
import { ok } from "./helpers.ts";

/** Quotes, orders, transactions and the staging pay-in simulation. */
export function registerQuoteRoutes(router: Router, core: Core): void {
  const api = (path: string) => `${API_PREFIX}${path}`;

  router.add("POST", api("/quote"), "key", (request) => {
    const body = parseWith(quoteRequest, request.body);
    const quote = createQuote(core, quoteParamsFromRequest(core, body));
    quote.requestFields = Object.keys(request.body as object);
    return ok(quoteView(core, quote));
  });

  router.add("GET", api("/order/all"), "key", () => {
    const orders = [...core.state.orders.values()].reverse();
    return ok(orders.map((order) => orderListView(core, order)));
  });

  router.add("GET", api("/order"), "key", (request) => {
    const id = request.query.get("id")?.trim();
    if (!id) throw badRequest("id is required (the order ID)");
    const order = core.state.orders.get(id);
    if (!order) throw notFound("Order not found");
    return ok(orderView(core, order));
  });

  router.add("GET", api("/transaction"), "key", (request) => {
    const pick = (name: string) => request.query.get(name)?.trim() || undefined;
    const by = { id: pick("id"), orderId: pick("orderId"), hash: pick("hash") };
    if (!by.id && !by.orderId && !by.hash) throw badRequest("Provide one of id, orderId or hash");
    const tx = findTransaction(core, by);
    if (!tx) throw notFound("Transaction not found");
    return ok(transactionDetail(core, tx));
  });

  router.add("POST", api("/simulation/pay-in"), "key", (request) => {
    const body = parseWith(simulationRequest, request.body);
    if (body.currency !== "NGN" && body.currency !== "BTC") throw badRequest("Invalid currency");
    const quote = findQuote(core, body);
    if (!quote) throw badRequest("Invalid quote ID");
    if (quote.paidAt !== undefined) throw badRequest("Quote already paid");
    const order = core.state.orders.get(quote.orderId);
    if (order?.status !== "PENDING" || quote.expiresAt <= core.clock.now())
      throw badRequest("Invalid quote ID");
    const expected = quote.sourceCurrency === "BTCSAT" ? "BTC" : "NGN";
    if (body.currency !== expected) throw badRequest("Invalid currency");
    if (expected === "NGN" && body.amount === undefined) {
      throw badRequest("Amount mismatch: amount (kobo) is required for NGN pay-ins");
    }
    if (body.amount !== undefined && body.amount !== BigInt(quote.total)) throw badRequest("Amount mismatch");
    const payout = payIn(core, quote);
    return ok("PayIn simulation successful", undefined, { after: payout });
  });
}
