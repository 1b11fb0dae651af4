import type { Update } from "grammy/types";
import { badRequest, conflict } from "#src/standins/local/telegram-emulator/errors.js";
import type { Handler } from "./context.ts";

/** Telegram caps long polls at 50 s. */
const MAX_POLL_SECONDS = 50;

const getUpdates: Handler = async (params, { updates, webhook, signal }) => {
  if (webhook.active)
    throw conflict(
      "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  updates.terminateParked();
  updates.setAllowed(params.json<string[]>("allowed_updates"));
  const offset = params.optInt("offset");
  if (offset !== undefined) updates.confirm(offset);
  const limit = Math.min(100, Math.max(1, params.optInt("limit") ?? 100));
  const timeout = Math.min(MAX_POLL_SECONDS, Math.max(0, params.optInt("timeout") ?? 0));
  let batch: Update[] = updates.take(limit);
  if (batch.length === 0 && timeout > 0) {
    const outcome = await updates.park(timeout * 1000, signal);
    if (outcome === "terminated")
      throw conflict(
        "terminated by other getUpdates request; make sure that only one bot instance is running",
      );
    if (webhook.active)
      throw conflict(
        "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    batch = updates.take(limit);
  }
  return batch;
};

const setWebhook: Handler = (params, { updates, webhook }) => {
  const url = params.optString("url") ?? "";
  if (params.bool("drop_pending_updates")) updates.drop();
  updates.setAllowed(params.json<string[]>("allowed_updates"));
  if (url === "") {
    webhook.clear();
    return true;
  }
  // Real Telegram wants HTTPS on 443/80/88/8443; locally the bot listens on plain HTTP, so accept both.
  if (!/^https?:\/\/[^/\s]+/i.test(url))
    throw badRequest("bad webhook: An HTTPS URL must be provided for webhook");
  const secretToken = params.optString("secret_token");
  if (secretToken !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secretToken))
    throw badRequest("secret token contains unallowed characters");
  const maxConnections = params.optInt("max_connections") ?? 40;
  if (maxConnections < 1 || maxConnections > 100)
    throw badRequest("bad webhook: max_connections must be 1-100");
  updates.terminateParked();
  webhook.set({ url, secretToken, maxConnections });
  return true;
};

const deleteWebhook: Handler = (params, { updates, webhook }) => {
  if (params.bool("drop_pending_updates")) updates.drop();
  webhook.clear();
  return true;
};

const getWebhookInfo: Handler = (_params, { updates, webhook }) => {
  const config = webhook.config;
  const allowed = updates.allowedList();
  return {
    url: config?.url ?? "",
    has_custom_certificate: false,
    pending_update_count: updates.size,
    ...(config ? { max_connections: config.maxConnections, ip_address: "127.0.0.1" } : {}),
    ...(config && webhook.lastError
      ? { last_error_date: webhook.lastError.date, last_error_message: webhook.lastError.message }
      : {}),
    ...(config && allowed ? { allowed_updates: allowed } : {}),
  };
};

export const updateMethods: Record<string, Handler> = {
  getUpdates,
  setWebhook,
  deleteWebhook,
  getWebhookInfo,
  close: () => true,
  logOut: () => true,
};
