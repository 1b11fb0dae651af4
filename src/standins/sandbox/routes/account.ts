import { z } from "zod";
import { type Core, iso } from "#src/standins/sandbox/core.js";
import {
  bankAccountView,
  listedWallets,
  userView,
  walletView,
} from "#src/standins/sandbox/domain/profile.js";
import { ApiError, badRequest, parseWith } from "#src/standins/sandbox/http/errors.js";
import type { Router } from "#src/standins/sandbox/http/router.js";
import { API_PREFIX } from "#src/standins/sandbox/http/server.js";
import { oneOf } from "#src/standins/sandbox/schemas/common.js";
import { webhookRequest } from "#src/standins/sandbox/schemas/requests.js";
import { ok, parseQuery, uuidParam } from "./helpers.ts";

const walletQuery = z.object({
  walletId: uuidParam.optional(),
  currency: oneOf(["NGN", "KES", "BTC", "USD"]).optional(),
});

const bankAccountQuery = z.object({
  walletId: uuidParam.optional(),
  currency: z.literal("NGN", { error: "must be NGN (the only supported value)" }).optional(),
});

function pingEvent(core: Core) {
  return { message: "This is a test webhook event", timestamp: iso(core.clock.now()) };
}

/** Profile, wallets, pay-in bank account and the account webhook. */
export function registerAccountRoutes(router: Router, core: Core): void {
  const api = (path: string) => `${API_PREFIX}${path}`;

  router.add("GET", api("/user"), "key", () => ok(userView(core)));

  router.add("GET", api("/wallet"), "key", (request) => {
    const query = parseQuery(walletQuery, request);
    const wallets = listedWallets(core).filter(
      (wallet) =>
        (query.walletId === undefined || wallet.id === query.walletId) &&
        (query.currency === undefined || wallet.currency === query.currency),
    );
    return ok(wallets.map((wallet) => walletView(core, wallet)));
  });

  router.add("GET", api("/bankaccount"), "key", (request) => {
    const query = parseQuery(bankAccountQuery, request);
    const account = bankAccountView(core);
    const matches = query.walletId === undefined || query.walletId === account.walletId;
    return ok(matches ? [account] : []);
  });

  const webhook = () => core.state.account.webhook;
  const registered = () => webhook().url !== "";

  router.add("POST", api("/webhook/register"), "key", (request) => {
    const body = parseWith(webhookRequest, request.body);
    const now = core.clock.now();
    Object.assign(webhook(), {
      url: body.url,
      secret: body.secret ?? webhook().secret,
      isActive: true,
      createdAt: now,
      updatedAt: now,
    });
    core.webhooks.emit("ping", pingEvent(core));
    const { id, url, isActive } = webhook();
    return ok({ id, url, isActive, createdAt: iso(now) });
  });

  router.add("PUT", api("/webhook"), "key", (request) => {
    if (!registered()) throw new ApiError(404, "No webhook registered: use POST /webhook/register");
    const body = parseWith(webhookRequest, request.body);
    Object.assign(webhook(), {
      url: body.url,
      secret: body.secret ?? webhook().secret,
      isActive: true,
      updatedAt: core.clock.now(),
    });
    const { id, url, isActive, createdAt, updatedAt } = webhook();
    return ok({ id, url, isActive, createdAt: iso(createdAt), updatedAt: iso(updatedAt) });
  });

  router.add("GET", api("/webhook"), "key", () => {
    if (!registered()) throw new ApiError(404, "No webhook registered");
    const { id, url, isActive, createdAt, updatedAt } = webhook();
    return ok({ id, url, isActive, createdAt: iso(createdAt), updatedAt: iso(updatedAt) });
  });

  router.add("POST", api("/webhook/test"), "key", () => {
    if (!registered() || !webhook().isActive)
      throw badRequest("No webhook registered: use POST /webhook/register");
    const [record] = core.webhooks.emit("ping", pingEvent(core));
    return ok({ event: "ping", deliveryId: record?.id ?? null }, "Test webhook sent");
  });
}
