import { z } from "zod";
import { type Core, iso } from "#src/standins/sandbox/core.js";
import { REQUIRED_CONFIRMATIONS } from "#src/standins/sandbox/domain/chain.js";
import { paymentLinkView, quoteView } from "#src/standins/sandbox/domain/views.js";
import { parseWith } from "#src/standins/sandbox/http/errors.js";
import type { Router } from "#src/standins/sandbox/http/router.js";
import { CORRIDORS, mergePrices, Pricing } from "#src/standins/sandbox/pricing.js";
import { FIATS, SPEEDS } from "#src/standins/sandbox/units.js";
import type { DeliveryRecord } from "#src/standins/sandbox/webhooks/dispatcher.js";
import { checkoutPage } from "./checkout.ts";
import { ok } from "./helpers.ts";

const advanceBody = z.object({
  ms: z
    .number()
    .int()
    .min(0)
    .max(366 * 24 * 3_600_000),
});
const mineBody = z.object({ count: z.number().int().min(1).max(1000).default(1) }).default({ count: 1 });
const nonNegative = z.number().int().min(0);
const accountBody = z.object({
  language: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/, "must be a language code such as EN, FR or pt-BR")
    .optional(),
  autopayout: z.boolean().optional(),
  nameEnquiryPerMinute: z.number().int().min(1).max(100_000).optional(),
  balances: z
    .object({
      NGN: nonNegative,
      KES: nonNegative,
      BTC: nonNegative,
      USD: nonNegative,
      ZAR: nonNegative,
      GHS: nonNegative,
    })
    .partial()
    .optional(),
  webhook: z
    .object({
      url: z.string().optional(),
      secret: z.string().min(1).optional(),
      isActive: z.boolean().optional(),
    })
    .optional(),
});
const corridorTable = z.object(Object.fromEntries(CORRIDORS.map((c) => [c, z.number().int()]))).partial();
const pricesBody = z.object({
  btcUsd: z.number().positive().optional(),
  usdRates: z
    .object(Object.fromEntries(FIATS.map((f) => [f, z.number().positive()])))
    .partial()
    .optional(),
  feeBps: corridorTable.optional(),
  spreadBps: corridorTable.optional(),
  onchainFeeSats: z
    .object(Object.fromEntries(SPEEDS.map((s) => [s, nonNegative])))
    .partial()
    .optional(),
});

function deliveryView(record: DeliveryRecord) {
  return {
    id: record.id,
    seq: record.seq,
    event: record.event,
    url: record.url,
    body: record.body,
    payload: JSON.parse(record.body) as unknown,
    signature: record.signature,
    attempts: record.attempts.map((attempt) => ({ ...attempt, at: iso(attempt.at) })),
    responseCodes: record.attempts.map((attempt) => attempt.statusCode),
    delivered: record.status === "delivered",
    status: record.status,
    nextAttemptAt: record.nextAttemptAt === null ? null : iso(record.nextAttemptAt),
    duplicateOf: record.duplicateOf,
    createdAt: iso(record.createdAt),
  };
}

/** Control routes outside /api/v1 (no key): clock, chain, webhooks log, faults, reset, account. */
export function registerControlRoutes(router: Router, core: Core, reset: () => void): void {
  const clockView = () => ({ now: iso(core.clock.now()), offsetMs: core.clock.offsetMs });

  router.add("GET", "/_sandbox/clock", "public", () => ok(clockView()));
  router.add("POST", "/_sandbox/clock/advance", "public", (request) => {
    const { ms } = parseWith(advanceBody, request.body);
    const ran = core.scheduler.advanceTo(core.clock.now() + ms);
    return ok({ ...clockView(), ran });
  });

  router.add("POST", "/_sandbox/blocks/mine", "public", (request) => {
    const { count } = parseWith(mineBody, request.body);
    const confirmed = core.chain.mine(count);
    return ok({ height: core.chain.height, confirmed });
  });

  router.add("GET", "/_sandbox/webhooks", "public", (request) => {
    const event = request.query.get("event");
    const records = core.webhooks.log().filter((record) => !event || record.event === event);
    return ok(records.map(deliveryView));
  });
  router.add("DELETE", "/_sandbox/webhooks", "public", () => {
    core.webhooks.reset();
    return ok([]);
  });

  router.add("GET", "/_sandbox/faults", "public", () => ok(core.faults.list()));
  router.add("POST", "/_sandbox/faults", "public", (request) => ok(core.faults.add(request.body)));
  router.add("DELETE", "/_sandbox/faults", "public", () => {
    core.faults.clear();
    return ok([]);
  });

  router.add("POST", "/_sandbox/reset", "public", () => {
    reset();
    return ok({ reset: true, now: iso(core.clock.now()) });
  });

  router.add("POST", "/_sandbox/account", "public", (request) => {
    const body = parseWith(accountBody, request.body ?? {});
    const { account } = core.state;
    if (body.language !== undefined) account.settings.language = body.language;
    if (body.autopayout !== undefined) account.settings.autopayout = body.autopayout;
    if (body.nameEnquiryPerMinute !== undefined) core.limits.nameEnquiryPerMinute = body.nameEnquiryPerMinute;
    for (const [currency, balance] of Object.entries(body.balances ?? {})) {
      const wallet = account.wallets[currency as keyof typeof account.wallets];
      if (wallet && balance !== undefined) wallet.balance = BigInt(balance);
    }
    if (body.webhook) {
      Object.assign(account.webhook, body.webhook, { updatedAt: core.clock.now() });
      if (body.webhook.url !== undefined && body.webhook.isActive === undefined) {
        account.webhook.isActive = body.webhook.url !== "";
      }
    }
    return ok({ ...accountSnapshot(core), limits: core.limits });
  });

  router.add("POST", "/_sandbox/prices", "public", (request) => {
    const body = parseWith(pricesBody, request.body ?? {});
    core.pricing = new Pricing(mergePrices(core.pricing.model, body));
    return ok(core.pricing.model);
  });

  router.add("GET", "/_sandbox/state", "public", () => ok(stateSnapshot(core)));

  router.add("GET", "/checkout/:id", "public", (request) => checkoutPage(core, request.params.id ?? ""));
}

function accountSnapshot(core: Core) {
  const { account } = core.state;
  return {
    apiKey: account.apiKey,
    webhook: {
      ...account.webhook,
      createdAt: iso(account.webhook.createdAt),
      updatedAt: iso(account.webhook.updatedAt),
    },
    settings: account.settings,
    wallets: Object.fromEntries(
      Object.entries(account.wallets).map(([currency, wallet]) => [
        currency,
        { id: wallet.id, balance: Number(wallet.balance) },
      ]),
    ),
  };
}

function stateSnapshot(core: Core) {
  const { state } = core;
  return {
    now: iso(core.clock.now()),
    clockOffsetMs: core.clock.offsetMs,
    blockHeight: core.chain.height,
    requiredConfirmations: REQUIRED_CONFIRMATIONS,
    account: accountSnapshot(core),
    prices: core.pricing.model,
    limits: core.limits,
    quotes: [...state.quotes.values()].map((quote) => ({
      ...quoteView(core, quote),
      paid: quote.paidAt !== undefined,
      autopayout: quote.autopayout,
      speed: quote.speed ?? null,
      beneficiary: quote.beneficiary ?? null,
      paymentLinkId: quote.paymentLinkId ?? null,
      requestFields: quote.requestFields ?? null,
    })),
    orders: [...state.orders.values()].map((order) => ({
      ...order,
      createdAt: iso(order.createdAt),
      updatedAt: iso(order.updatedAt),
    })),
    transactions: state.transactions.map((tx) => ({
      id: tx.id,
      type: tx.type,
      status: tx.status,
      currency: tx.currency,
      amount: tx.amount,
      fees: tx.fees,
      hash: tx.hash,
      orderId: tx.orderId,
      origin: tx.origin,
      onchain: tx.onchain
        ? {
            ...tx.onchain,
            requiredConfirmations: REQUIRED_CONFIRMATIONS,
            broadcastAt: iso(tx.onchain.broadcastAt),
            confirmedAt: tx.onchain.confirmedAt === undefined ? null : iso(tx.onchain.confirmedAt),
          }
        : null,
      failureReason: tx.failureReason ?? null,
      createdAt: iso(tx.createdAt),
      updatedAt: iso(tx.updatedAt),
    })),
    paymentLinks: [...state.paymentLinks.values()].map((link) => paymentLinkView(core, link)),
    scheduled: core.scheduler.pending().map((task) => ({ ...task, due: iso(task.due) })),
    faults: core.faults.list(),
  };
}
